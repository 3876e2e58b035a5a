  """Carts."""
  import functools
  
  MAX_ITEMS: int = 100
# ^^^^^^^^^ definition scip-python python shop 2.0.1 `src.shop.cart`/MAX_ITEMS.
# kind var lines 4-4
  _cache = {}
# ^^^^^^ definition scip-python python shop 2.0.1 `src.shop.cart`/_cache.
# kind var lines 5-5
  
  
  def new_cart():
#     ^^^^^^^^ definition scip-python python shop 2.0.1 `src.shop.cart`/new_cart().
#     kind function lines 8-10
#     documentation Make a cart.
      """Make a cart."""
      return Cart()
  
  
  @functools.lru_cache
  def price(sku):
#     ^^^^^ definition scip-python python shop 2.0.1 `src.shop.cart`/price().
#     kind function lines 13-17
      def helper():
          return 1
      return helper()
  
  
  class Cart(object):
#       ^^^^ definition scip-python python shop 2.0.1 `src.shop.cart`/Cart#
#       kind class lines 20-36
#       documentation A cart.
      """A cart."""
  
      limit = MAX_ITEMS
#     ^^^^^ definition scip-python python shop 2.0.1 `src.shop.cart`/Cart#limit.
#     kind field lines 23-23
  
      def __init__(self):
#         ^^^^^^^^ definition scip-python python shop 2.0.1 `src.shop.cart`/Cart#__init__().
#         kind method lines 25-26
          self.items = []
  
      @property
      def size(self):
#         ^^^^ definition scip-python python shop 2.0.1 `src.shop.cart`/Cart#size().
#         kind method lines 28-30
          return len(self.items)
  
      async def checkout(self, *, pay=True):
#               ^^^^^^^^ definition scip-python python shop 2.0.1 `src.shop.cart`/Cart#checkout().
#               kind method lines 32-33
          pass
  
      class Line:
#           ^^^^ definition scip-python python shop 2.0.1 `src.shop.cart`/Cart#Line#
#           kind class lines 35-36
          qty: int = 1
#         ^^^ definition scip-python python shop 2.0.1 `src.shop.cart`/Cart#Line#qty.
#         kind field lines 36-36
