// Kubernetes quantities ("500m", "1Gi", metrics-server's "123456n") as the amounts they stand for. Pure.

const quantityPattern = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(?:([eE][+-]?\d+)|(n|u|m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei))?$/;
const suffixes: Record<string, number> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

/** The amount a Kubernetes quantity string stands for, or undefined when it is not one. */
export function quantityValue(text: string): number | undefined {
  const match = quantityPattern.exec(text);
  if (!match) return undefined;
  const [, number, exponent, suffix] = match;
  const base = Number(number);
  if (exponent) return Number(`${number}${exponent}`);
  return suffix ? base * suffixes[suffix]! : base;
}
