"""Carts."""
import functools

MAX_ITEMS: int = 100
_cache = {}


def new_cart():
    """Make a cart."""
    return Cart()


@functools.lru_cache
def price(sku):
    def helper():
        return 1
    return helper()


class Cart(object):
    """A cart."""

    limit = MAX_ITEMS

    def __init__(self):
        self.items = []

    @property
    def size(self):
        return len(self.items)

    async def checkout(self, *, pay=True):
        pass

    class Line:
        qty: int = 1
