#ifndef CONTENTFUL_MIRROR_CARCHIVE_SHIM_H
#define CONTENTFUL_MIRROR_CARCHIVE_SHIM_H

// libarchive, from the system (Debian: libarchive-dev). Only ArchiveWriter.swift and
// ArchiveReader.swift in ContentfulMirror import this module.
#include <archive.h>
#include <archive_entry.h>

#endif
