import CArchive

/// Real gzip compression through libarchive's gzip filter (raw format, to memory), for servers
/// that should send what the CDA sends: compressed pages.
public enum GzipCompressor {
  /// `data` gzip-compressed at `level` (nil if libarchive fails).
  public static func compress(_ data: [UInt8], level: Int = 6) -> [UInt8]? {
    guard let archive = archive_write_new(), let entry = archive_entry_new() else { return nil }
    defer {
      archive_entry_free(entry)
      archive_write_free(archive)
    }
    // libarchive keeps these pointers until close, so they must outlive any closure.
    let capacity = data.count + data.count / 10 + 4096
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 16)
    let used = UnsafeMutablePointer<Int>.allocate(capacity: 1)
    used.initialize(to: 0)
    defer {
      buffer.deallocate()
      used.deallocate()
    }
    guard archive_write_set_format_raw(archive) == ARCHIVE_OK,
      archive_write_add_filter_gzip(archive) == ARCHIVE_OK,
      archive_write_set_options(archive, "gzip:!timestamp,gzip:compression-level=\(level)")
        == ARCHIVE_OK,
      archive_write_set_bytes_in_last_block(archive, 1) == ARCHIVE_OK,
      archive_write_open_memory(archive, buffer.baseAddress, capacity, used) == ARCHIVE_OK
    else { return nil }
    archive_entry_set_filetype(entry, 0o100000)
    archive_entry_set_size(entry, Int64(data.count))
    guard archive_write_header(archive, entry) == ARCHIVE_OK else { return nil }
    let written = data.withUnsafeBytes { archive_write_data(archive, $0.baseAddress, $0.count) }
    guard written == data.count, archive_write_close(archive) == ARCHIVE_OK else { return nil }
    return Array(buffer.prefix(used.pointee))
  }
}
