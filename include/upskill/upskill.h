/*
 * upskill's public API: the only header the command-line layer includes.
 */
#ifndef UPSKILL_UPSKILL_H
#define UPSKILL_UPSKILL_H

#include "upskill/ab.h"
#include "upskill/alloc.h"
#include "upskill/arena.h"
#include "upskill/buf.h"
#include "upskill/cache.h"
#include "upskill/catalog.h"
#include "upskill/config.h"
#include "upskill/error.h"
#include "upskill/esc.h"
#include "upskill/eval.h"
#include "upskill/fs.h"
#include "upskill/gen.h"
#include "upskill/harness.h"
#include "upskill/http.h"
#include "upskill/merge.h"
#include "upskill/model.h"
#include "upskill/provider.h"
#include "upskill/quote.h"
#include "upskill/report.h"
#include "upskill/sandbox.h"
#include "upskill/sched.h"
#include "upskill/select.h"
#include "upskill/session.h"
#include "upskill/skill.h"
#include "upskill/stats.h"
#include "upskill/store.h"
#include "upskill/suite.h"
#include "upskill/trace.h"
#include "upskill/validate.h"
#include "upskill/version.h"

#endif
