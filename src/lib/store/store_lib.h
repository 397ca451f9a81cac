/*
 * The run folders: the calls of upskill/store.h that the library's other parts
 * and the tests make and src/cli never does (issue 33: include/upskill is what
 * src/cli needs).
 */
#ifndef UPSKILL_LIB_STORE_STORE_LIB_H
#define UPSKILL_LIB_STORE_STORE_LIB_H

#include "upskill/store.h"

void up_run_record_init(up_run_record *r);
void up_run_record_release(up_run_record *r);

/*
 * Create a new batch folder under runs_dir; its path goes to dir and its
 * id to id.  Never reuses an existing folder.  runs_dir is created when
 * missing, but only when its parent exists (UP_ENOTFOUND naming the
 * parent otherwise).
 */
int up_store_batch_new(up_buf *dir, up_buf *id, const char *runs_dir,
                       up_error *err);

/*
 * Take the batch's advisory lock (flock on batch_dir/lock, created if
 * needed) for as long as *fd stays open, and write who holds it into the
 * file.  When another process holds it: UP_EIO with a message naming the
 * holder (pid, host, start time), *fd -1.  Release with
 * up_store_batch_unlock.
 */
int up_store_batch_lock(int *fd, const char *batch_dir, up_error *err);
/* Release a lock from up_store_batch_lock (fd may be -1). */
void up_store_batch_unlock(int fd);

/*
 * Remove the leftovers of interrupted atomic writes (NAME.tmp.XXXXXX) in
 * batch_dir, its run_N folders and their cases/; call it only while
 * holding the batch's lock.  Returns how many were removed.
 */
size_t up_store_batch_clean(const char *batch_dir);

/* Write run_N/run_metadata.json and run_N/run_result.json for r. */
int up_store_run_write(const char *batch_dir, const up_run_record *r,
                       up_error *err);

/* Write run_N/name (len bytes of data) atomically, creating run_N. */
int up_store_run_file_write(const char *batch_dir, int run_number,
                            const char *name, const char *data, size_t len,
                            up_error *err);

/*
 * Cap the texts of a case artifact (a JSON object with "messages"): every
 * message's "content" and every tool call's "arguments" together hold at
 * most cap bytes.  Short texts stay whole and the long ones share what is
 * left equally; a cut text ends at a UTF-8 character boundary and its
 * object gets KEY_cut: true and KEY_bytes, the size before the cut (kept
 * when already set, e.g. by an answer cut at max_answer_bytes).
 * Returns the bytes of text kept.
 */
size_t up_store_case_cap(struct json_t *artifact, size_t cap);

/* Open run_N's (created if needed) temporary cases file.  Errors: UP_EIO. */
int up_store_cases_open(up_store_cases *w, const char *batch_dir,
                        int run_number, up_error *err);
/* Append one artifact (compact JSON text, no newline) as a line. */
int up_store_cases_add(up_store_cases *w, const char *json, up_error *err);
/* Append len bytes of line, one artifact and its newline, as they are. */
int up_store_cases_add_line(up_store_cases *w, const char *line, size_t len,
                            up_error *err);
/* Sync and rename into place; the writer is released either way. */
int up_store_cases_close(up_store_cases *w, up_error *err);
/* Drop the temporary file (after an error); safe when not open. */
void up_store_cases_abort(up_store_cases *w);

/*
 * The artifacts of case case_index (0-based) in batch_dir: its line in
 * every run_N/cases/transcripts.jsonl, runs in number order, as a new JSON
 * array in *out (the caller decrefs it; empty when the batch has none).  Files
 * are read a line at a time.  Errors: UP_EPARSE naming the file and line
 * that is not a JSON object, UP_EIO.
 */
/*
 * Call fn with each artifact (a JSON object, borrowed for the call) of the
 * cases file path, a line at a time.  A missing file has none (0);
 * UP_EPARSE names the line that is not a JSON object, UP_EIO a read error.
 */
int up_store_cases_each(const char *path,
                        void (*fn)(void *ud, struct json_t *artifact), void *ud,
                        up_error *err);

/* assertions_passed / assertions_total, 0 when the total is 0. */
double up_run_rate(const up_run_record *r);

#endif
