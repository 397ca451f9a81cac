/*
 * Private to the generate module: what gen.c (the teacher's side) and
 * gen_loop.c (evaluate, refine, log, save) share.
 */
#ifndef UPSKILL_LIB_GEN_LOOP_H
#define UPSKILL_LIB_GEN_LOOP_H

#include "upskill/gen.h"

/* Send an event to the caller's hook, if any. */
void gen_emit(up_gen *g, enum up_gen_stage stage, int attempt,
              const char *model, const char *detail, const up_gen_attempt *a);

/*
 * Ask the teacher for a skill with the user prompt `user`; files of prev
 * (may be NULL) that the reply leaves out are kept.  Invalid replies are
 * sent back with their errors up to max_repairs times; then UP_EINVALID.
 * s must be initialised.
 */
int gen_ask_skill(up_gen *g, const char *user, const up_skill *prev,
                  up_skill *s, int attempt, up_error *err);

/* The first version: generated from the task (and trace), or improved. */
int gen_first(up_gen *g, up_skill *s, up_error *err);

/* g empty, with its options and config (borrowed); nothing resolved. */
void gen_clear(up_gen *g, const up_gen_opts *o, const up_config *cfg);

/* Generate g->suite with the test-gen model (one retry when unusable). */
int gen_tests(up_gen *g, up_error *err);

/* The folder the skill named name goes to (-o, else skills_dir/name). */
void gen_target(const up_gen *g, const char *name, up_buf *out);

/* The name -o DIR gives the skill (DIR's last component), or "". */
void gen_output_name(const up_gen *g, up_buf *out);

/*
 * The folder rule, checked before spending: -o DIR's last component must
 * be a skill name, and the folder (for name, or -o DIR when name is
 * NULL) must not exist unless --force.  Errors: UP_EUSAGE, naming the
 * folder and the flags.
 */
int gen_check_target(up_gen *g, const char *name, up_error *err);

/*
 * Before saving to *path: nothing there, fine; there without --force,
 * UP_EUSAGE; with --force, a finished run copies the old folder (hard
 * links) to path.bak-<time> (g->backup), an unfinished one points *path at a
 * free path.new-<time> beside it and leaves the old folder be.  UP_EIO.
 */
int gen_make_room(up_gen *g, int finished, up_buf *path, up_error *err);

/*
 * Split g->suite (every test) by o->seed: about o->holdout percent
 * (UP_GEN_HOLDOUT when < 0), at least UP_GEN_HOLDOUT_MIN, into g->held,
 * the rest stays in g->suite; none when that would leave fewer than
 * UP_GEN_HOLDOUT_KEEP (holdout_off says why).  Errors: UP_EPARSE.
 */
int gen_holdout_split(up_gen *g, up_error *err);

/*
 * Measure the kept version on the held-out cases (both arms, every
 * model) into g->hplan and g->hsums; nothing when none is held out.
 */
int gen_holdout_eval(up_gen *g, up_error *err);

/* Training case i's index in the saved tests (every case). */
size_t gen_holdout_saved_index(const up_gen *g, size_t i);

/* Release what the split and the held-out measure hold. */
void gen_holdout_release(up_gen *g);

#endif
