/*
 * upskill merge (docs/sharding.md): the shard batches of one
 * `eval --shard I/N` run combined into one batch, to be finished by
 * `eval --resume`.
 */
#ifndef UPSKILL_MERGE_H
#define UPSKILL_MERGE_H

#include <stddef.h>

#include "upskill/buf.h"
#include "upskill/error.h"

/*
 * Check that the batch folders batches[0..n) are the shards 1..N of one
 * plan, each once: their batch_plan.json files agree on suite, skill,
 * models, runs, baseline, agent, injection, seed (when recorded) and N.
 * Then create a new batch under runs_dir (up_store_batch_new; its path to
 * dir, its id to id) holding every shard's complete journal lines in one
 * journal.jsonl and the plan without its "shard" mark, marked "merged"
 * (UP_EVAL_MERGED).  Nothing is sent: `eval --resume` of the new batch
 * writes the run files, and re-sends no job that errored in its shard.
 * notes gets a line for each shard whose every conversation errored (they
 * stay errors).  UP_EPARSE naming
 * the batch and what differs (another plan, a batch that is not a shard, a
 * duplicate index, the missing indices); read errors name the file.  On
 * failure no new batch is left behind.
 */
int up_merge_shards(up_buf *dir, up_buf *id, up_buf *notes,
                    const char *runs_dir, char *const *batches, size_t n,
                    up_error *err);

#endif
