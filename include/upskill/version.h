/*
 * This project's version: the one place it is kept.  `upskill --version`,
 * the HTTP User-Agent ("upskill/VERSION") and each run's metadata
 * (upskill_version) use it.  Bump it here on a release.
 */
#ifndef UPSKILL_VERSION_H
#define UPSKILL_VERSION_H

#define UPSKILL_VERSION "0.1.0"

#endif
