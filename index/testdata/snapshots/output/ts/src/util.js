  // Utilities.
  export function sum(xs) {
//                ^^^ definition scip-typescript npm @acme/shop 3.1.0 src/`util.js`/sum().
//                kind function lines 2-4 doc 1
//                documentation Utilities.
    return xs.reduce((a, b) => a + b, 0);
  }
  
  class Counter {
//      ^^^^^^^ definition scip-typescript npm @acme/shop 3.1.0 src/`util.js`/Counter#
//      kind class lines 6-9
    count = 0;
//  ^^^^^ definition scip-typescript npm @acme/shop 3.1.0 src/`util.js`/Counter#count.
//  kind field lines 7-7
    inc() { this.count++; }
//  ^^^ definition scip-typescript npm @acme/shop 3.1.0 src/`util.js`/Counter#inc().
//  kind method lines 8-8
  }
  
  const PI = 3.14;
//      ^^ definition scip-typescript npm @acme/shop 3.1.0 src/`util.js`/PI.
//      kind const lines 11-11
