  /** Maximum items. */
  export const MAX_ITEMS = 100;
//             ^^^^^^^^^ definition scip-typescript npm @acme/shop 3.1.0 src/`cart.ts`/MAX_ITEMS.
//             kind const lines 2-2 doc 1
//             documentation Maximum items.
  let counter = 0, other = 1;
//    ^^^^^^^ definition scip-typescript npm @acme/shop 3.1.0 src/`cart.ts`/counter.
//    kind var lines 3-3
//                 ^^^^^ definition scip-typescript npm @acme/shop 3.1.0 src/`cart.ts`/other.
//                 kind var lines 3-3
  
  /** A priced thing. */
  export interface Priced {
//                 ^^^^^^ definition scip-typescript npm @acme/shop 3.1.0 src/`cart.ts`/Priced#
//                 kind interface lines 6-9 doc 5
//                 documentation A priced thing.
    price: number;
//  ^^^^^ definition scip-typescript npm @acme/shop 3.1.0 src/`cart.ts`/Priced#price.
//  kind field lines 7-7
    total(qty: number): number;
//  ^^^^^ definition scip-typescript npm @acme/shop 3.1.0 src/`cart.ts`/Priced#total().
//  kind method lines 8-8
  }
  
  export type Sku = string;
//            ^^^ definition scip-typescript npm @acme/shop 3.1.0 src/`cart.ts`/Sku#
//            kind type lines 11-11
  
  export enum Color { Red, Green = 2 }
//            ^^^^^ definition scip-typescript npm @acme/shop 3.1.0 src/`cart.ts`/Color#
//            kind enum lines 13-13
//                    ^^^ definition scip-typescript npm @acme/shop 3.1.0 src/`cart.ts`/Color#Red.
//                    kind field lines 13-13
//                         ^^^^^ definition scip-typescript npm @acme/shop 3.1.0 src/`cart.ts`/Color#Green.
//                         kind field lines 13-13
  
  /** A cart. */
  export class Cart implements Priced {
//             ^^^^ definition scip-typescript npm @acme/shop 3.1.0 src/`cart.ts`/Cart#
//             kind class lines 16-31 doc 15
//             documentation A cart.
    static created = 0;
//         ^^^^^^^ definition scip-typescript npm @acme/shop 3.1.0 src/`cart.ts`/Cart#created.
//         kind field lines 17-17
    price = 0;
//  ^^^^^ definition scip-typescript npm @acme/shop 3.1.0 src/`cart.ts`/Cart#price.
//  kind field lines 18-18
    private items: Sku[] = [];
//          ^^^^^ definition scip-typescript npm @acme/shop 3.1.0 src/`cart.ts`/Cart#items.
//          kind field lines 19-19
  
    constructor(owner: string) {
//  ^^^^^^^^^^^ definition scip-typescript npm @acme/shop 3.1.0 src/`cart.ts`/Cart#`<constructor>`().
//  kind method lines 21-23
      Cart.created++;
    }
  
    get size(): number { return this.items.length; }
//      ^^^^ definition scip-typescript npm @acme/shop 3.1.0 src/`cart.ts`/Cart#`<get>size`().
//      kind method lines 25-25
    set size(v: number) {}
//      ^^^^ definition scip-typescript npm @acme/shop 3.1.0 src/`cart.ts`/Cart#`<set>size`().
//      kind method lines 26-26
  
    total(qty: number): number {
//  ^^^^^ definition scip-typescript npm @acme/shop 3.1.0 src/`cart.ts`/Cart#total().
//  kind method lines 28-30
      return this.price * qty;
    }
  }
  
  export function newCart(owner: string): Cart {
//                ^^^^^^^ definition scip-typescript npm @acme/shop 3.1.0 src/`cart.ts`/newCart().
//                kind function lines 33-35
    return new Cart(owner);
  }
  
  export const add = (a: number, b: number) => a + b;
//             ^^^ definition scip-typescript npm @acme/shop 3.1.0 src/`cart.ts`/add.
//             kind function lines 37-37
  
  namespace Internal {
//          ^^^^^^^^ definition scip-typescript npm @acme/shop 3.1.0 src/`cart.ts`/Internal/
//          kind namespace lines 39-41
    export const secret = 1;
//               ^^^^^^ definition scip-typescript npm @acme/shop 3.1.0 src/`cart.ts`/Internal/secret.
//               kind const lines 40-40
  }
  
  export default function () {}
