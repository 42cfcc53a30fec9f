// The flags Node runs Berth with, wherever it is started: the image's entrypoint, `npm start`, the
// tests and the benchmarks (test/node-flags.test.ts checks that each place carries them).
//
// --optimize-for-size: V8 sizes its heap for memory rather than speed. Berth's work is waiting on the
// API server, so the extra garbage collections cost little, while the default growth policy keeps
// the peak of the first cache fill for good: 272 instead of 449 MiB at 10,000 Deployments
// (BENCHMARKS.md, section 5).
export const nodeFlags = ['--optimize-for-size'] as const;
