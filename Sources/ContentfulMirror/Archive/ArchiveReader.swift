import CArchive

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Reads an archive of any format and compression libarchive knows, one entry at a time.
/// Owns a libarchive handle: confined to one task, freed in `deinit`.
final class ArchiveReader {
  /// One archive member's header.
  struct Entry {
    enum Kind { case regular, directory, other(String) }
    var path: String
    var kind: Kind
    var size: Int64
    var hasLinkTarget: Bool
  }

  private let archive: OpaquePointer
  /// The largest member read into memory; larger ones are refused.
  let maximumEntrySize: Int64 = 512 << 20

  /// Opens `path` (`-` reads standard input).
  init(path: String) throws(ArchiveError) {
    guard let archive = archive_read_new() else {
      throw ArchiveError(.io, "libarchive could not allocate a reader")
    }
    self.archive = archive
    archive_read_support_filter_all(archive)
    archive_read_support_format_all(archive)
    let status =
      path == "-"
      ? archive_read_open_fd(archive, STDIN_FILENO, 64 * 1024)
      : archive_read_open_filename(archive, path, 64 * 1024)
    guard status == ARCHIVE_OK else {
      throw ArchiveError(.invalidArchive, "cannot read \(path) as an archive: \(errorText)")
    }
  }

  deinit { archive_read_free(archive) }

  private var errorText: String {
    archive_error_string(archive).map { String(cString: $0) } ?? "unknown error"
  }

  /// The next member's header, or `nil` at the end.
  func next() throws(ArchiveError) -> Entry? {
    var header: OpaquePointer?
    let status = archive_read_next_header(archive, &header)
    if status == ARCHIVE_EOF { return nil }
    guard status == ARCHIVE_OK || status == ARCHIVE_WARN, let header else {
      throw ArchiveError(.invalidArchive, "the archive is damaged: \(errorText)")
    }
    let path = archive_entry_pathname(header).map { String(cString: $0) } ?? ""
    let type = archive_entry_filetype(header)
    let kind: Entry.Kind
    // libarchive's AE_IF* constants are the POSIX S_IF* file type bits.
    switch type {
    case S_IFREG: kind = .regular
    case S_IFDIR: kind = .directory
    case S_IFLNK: kind = .other("a symbolic link")
    case S_IFCHR, S_IFBLK: kind = .other("a device")
    case S_IFIFO: kind = .other("a FIFO")
    case S_IFSOCK: kind = .other("a socket")
    default: kind = .other("a special file")
    }
    let linked = archive_entry_hardlink(header) != nil || archive_entry_symlink(header) != nil
    return Entry(path: path, kind: kind, size: archive_entry_size(header), hasLinkTarget: linked)
  }

  /// The current member's data.
  func readData(of entry: Entry) throws(ArchiveError) -> [UInt8] {
    guard entry.size <= maximumEntrySize else {
      throw ArchiveError(
        .invalidArchive, "\(entry.path) is larger than \(maximumEntrySize >> 20) MB")
    }
    var result: [UInt8] = []
    result.reserveCapacity(Int(max(entry.size, 0)))
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
      let count = chunk.withUnsafeMutableBytes {
        archive_read_data(archive, $0.baseAddress, $0.count)
      }
      if count == 0 { break }
      guard count > 0 else {
        throw ArchiveError(.invalidArchive, "cannot read \(entry.path): \(errorText)")
      }
      result.append(contentsOf: chunk[0..<count])
      guard result.count <= maximumEntrySize else {
        throw ArchiveError(
          .invalidArchive, "\(entry.path) is larger than \(maximumEntrySize >> 20) MB")
      }
    }
    return result
  }
}
