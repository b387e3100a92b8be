#ifndef CONTENTFUL_MIRROR_CSYSTEM_SHIM_H
#define CONTENTFUL_MIRROR_CSYSTEM_SHIM_H

#if defined(__linux__)
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <unistd.h>

/// Flushes the file system holding `fd` to stable storage (Linux `syncfs(2)`).
static inline int cm_syncfs(int fd) { return syncfs(fd); }
#else
#include <unistd.h>

/// Elsewhere there is no per-file-system flush: fall back to a full-system `sync(2)`.
static inline int cm_syncfs(int fd) { (void)fd; sync(); return 0; }
#endif

#endif
