// Utilities.
export function sum(xs) {
  return xs.reduce((a, b) => a + b, 0);
}

class Counter {
  count = 0;
  inc() { this.count++; }
}

const PI = 3.14;
