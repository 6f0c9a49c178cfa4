// The middle value of a set of measurements (the upper middle of an even count): what every bench
// script reports from its rounds.
export const median = (values: number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
