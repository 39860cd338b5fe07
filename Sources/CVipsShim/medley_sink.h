/* Sinks that cannot lose a failed read (private to CVipsShim).
 *
 * libvips 8.14 (Debian 12's) can return success from a sink whose last worker failed: its
 * threadpool reads the error flag before it waits for the workers still running (upstream fixed
 * it in 8.15.4, "threadpool: fix a race condition in error handling"). libvips' tile caches black
 * out a tile whose read failed, so the image is then written as if it had decoded: a truncated
 * PNG exported as good, more often the more workers a sink has (pyvips on Debian 12, a PNG cut in
 * its last IDAT saved 2,000 times: 0 successes with 1 worker, 61 with 2, 452 with 4, 1,410 with 8).
 *
 * So every sink of CVipsShim reads its image through a watch that notes a failed read, and a sink
 * that returned success over one fails. The watch also carries the sink's workers (libvips'
 * "concurrency" field). libvips' own inner sinks, which no watch can see (a random-access load
 * decoding into memory, a thumbnail's copy before it rotates), get libvips' default concurrency,
 * which Medley sets to one worker: a pool of one cannot lose its error (its worker notes the
 * failure before it asks for more work, and only asking for more can end the pool). */
#ifndef MEDLEY_SINK_H
#define MEDLEY_SINK_H

#include <vips/vips.h>

typedef struct MedleyWatch MedleyWatch;

/* A new image that reads `in` for one sink, with the sink's workers, noting any failed read
 * (`*watch`, freed with the image). NULL on error. */
VipsImage *medley_sink_begin(VipsImage *in, MedleyWatch **watch);

/* The sink's outcome: `result`, or -1 (with a libvips error) when the sink returned success but a
 * read failed. Drops the image `medley_sink_begin` made. */
int medley_sink_end(VipsImage *watched, MedleyWatch *watch, int result);

/* The workers each of Medley's sinks gets. */
int medley_sink_workers(void);

/* At libvips' start: Medley's sinks take libvips' default workers (unless set already), and
 * libvips' own inner sinks get one. */
void medley_sink_start(void);

#endif
