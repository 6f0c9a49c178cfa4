// Waiting for work with a bound: for stops that must end even when a peer no longer answers.

/** Resolves true once `work` settles (fulfilled or rejected), or false when `ms` pass first. */
export function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const settled = work.then(
    () => true,
    () => true,
  );
  return Promise.race([settled, bound]).finally(() => clearTimeout(timer));
}
