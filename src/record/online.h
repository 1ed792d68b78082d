/* SPDX-License-Identifier: MIT */
/*
 * online.h - DWARF unwinding while recording, in a thread apart from the drain loop.
 *
 * The recorder's writer hands each closed chunk (uncompressed records) to this stage instead of
 * the file. The thread feeds the chunks to report/unwind/rewrite.h, which replays them as a report
 * would, unwinds each sample's user stack copy and writes the sample with its unwound call
 * chain in place of the copy; everything else goes to the file unchanged, in time order, with
 * its rounds. This file is the thread, its queues and when to fall behind.
 *
 * When more than the backlog waits for the thread, or a chunk waited more than half a second,
 * its samples keep their copies (stored as recorded, unwound at report time), and so does a
 * sample no frame could be unwound for: what is recorded reaches the file within about a second.
 * The recorder never waits for the thread, but to bound memory: beyond 256 MiB queued. A chunk
 * is queued in the recorder's own buffer, which the writer exchanges for a spare one; when no
 * spare is back, the chunk is packed with zstd (about 50x smaller on stack copies) into 8 MiB
 * set aside and faulted in at the start, so that the drain loop needs no new memory. A thread
 * that only copies chunks lets 256 MiB queue only when starved for long.
 * Chunks still queued when the recorder is killed are lost with it, as the rings' contents are;
 * every chunk the thread wrote is complete on disk.
 *
 * Without unwinding (kp_online_start_live()), the same thread and queues hand each chunk to a
 * live consumer, then to the file unchanged: a consumer slower than the kernel makes records
 * (kprof trace's, pairing and printing system calls) never holds the drain loop up, memory
 * does, up to the same 256 MiB.
 */
#ifndef KP_ONLINE_H
#define KP_ONLINE_H

#include <stddef.h>
#include <stdint.h>

#include "formats/kprof-format.h"
#include "formats/writer.h"
#include "report/replay/unwind-stats.h"

struct kp_online;

/* A backlog for input that can wait (a file): no chunk keeps its copies, the feeder waits. */
#define KP_ONLINE_NEVER_BEHIND SIZE_MAX

/*
 * kp_online_start - write the file on @fd (zstd @level), fed by @in, which is initialised here
 * as a sink writer with @reserve bytes of buffer; at most @backlog bytes of records wait for
 * unwinding before chunks are stored as recorded (0: always). Returns NULL with *@err set
 * (-errno or -KP_E*, for kp_strerror()) when the file cannot be started or the thread cannot
 * be created.
 */
struct kp_online *kp_online_start(int fd, int level, size_t backlog, size_t reserve,
				  struct kp_writer *in, int *err);

/*
 * kp_online_start_live - the stage without unwinding: the thread gives each chunk to @fn (with
 * @ctx; a sink that leaves the buffer where it is), then, with @fd >= 0, writes it to that file
 * (zstd @level) as it is. A non-zero return of @fn is returned to @in's next chunk (and so
 * ends the recording). Returns NULL as kp_online_start() does.
 */
struct kp_online *kp_online_start_live(int fd, int level, size_t reserve, kp_writer_sink_fn *fn,
				       void *ctx, struct kp_writer *in, int *err);

/*
 * kp_online_finish - after @in's last chunk was flushed: unwind and write what is queued, end
 * the thread, write where its stacks stopped early (UNWIND_DSO records) and fill @st (for an
 * UNWIND_STATS record; zero without unwinding). Returns the file writer (for the final records, then
 * kp_writer_close()), owned by @on.
 */
struct kp_writer *kp_online_finish(struct kp_online *on, struct kp_rec_unwind_stats *st);

/* kp_online_stats - after kp_online_finish(): how the unwinding went, with the strings its paths
 * are in (*@strs), both owned by @on, and how often the recorder had to wait for the thread
 * (*@waits: more than 256 MiB of memory, or 256 chunks, were queued). */
const struct kp_unwind_stats *kp_online_stats(const struct kp_online *on,
					      const struct kp_strtab **strs, uint64_t *waits);

/* kp_online_free - end the thread if it still runs (what is queued is dropped), free it all. */
void kp_online_free(struct kp_online *on);

#endif /* KP_ONLINE_H */
