// How Node runs Berth wherever it is started: the image's entrypoint, `npm start`, the tests and the
// benchmarks (test/process-setup.test.ts checks that each place carries these).
//
// --optimize-for-size: V8 sizes its heap for memory rather than speed. Berth's work is waiting on the
// API server, so the extra garbage collections cost little, while the default growth policy keeps
// the peak of the first cache fill for good: 272 instead of 449 MiB at 10,000 Deployments
// (BENCHMARKS.md, section 5).
export const nodeFlags = ['--optimize-for-size'] as const;

// MALLOC_MMAP_THRESHOLD_: glibc serves blocks above a threshold with mmap and returns them on free, but
// raises that threshold (up to 32 MiB) each time such a block is freed; after the first list pages
// every response buffer comes from the heap, which does not shrink. Fixing it at its initial 128 KiB
// keeps large buffers returnable: 5-10 MiB less resident after a restart over 3000-10,000 Deployments.
//
// MALLOC_ARENA_MAX: glibc gives each thread that allocates (Node's, V8's and libuv's workers) an arena
// of its own, up to eight per core, and memory freed in one is not reused by another. With two, Berth
// settles about 6 MiB smaller over 10,000 Deployments (BENCHMARKS.md, section 5).
//
// Both are read by glibc when the process starts, so they are set in the environment (the Dockerfile's
// ENV), not by Berth itself; other C libraries ignore them.
export const processEnvironment = { MALLOC_MMAP_THRESHOLD_: '131072', MALLOC_ARENA_MAX: '2' } as const;
