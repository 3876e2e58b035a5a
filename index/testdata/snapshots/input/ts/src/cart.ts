/** Maximum items. */
export const MAX_ITEMS = 100;
let counter = 0, other = 1;

/** A priced thing. */
export interface Priced {
  price: number;
  total(qty: number): number;
}

export type Sku = string;

export enum Color { Red, Green = 2 }

/** A cart. */
export class Cart implements Priced {
  static created = 0;
  price = 0;
  private items: Sku[] = [];

  constructor(owner: string) {
    Cart.created++;
  }

  get size(): number { return this.items.length; }
  set size(v: number) {}

  total(qty: number): number {
    return this.price * qty;
  }
}

export function newCart(owner: string): Cart {
  return new Cart(owner);
}

export const add = (a: number, b: number) => a + b;

namespace Internal {
  export const secret = 1;
}

export default function () {}
