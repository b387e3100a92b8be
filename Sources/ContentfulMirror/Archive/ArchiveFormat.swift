/// The archive formats `export` writes and `restore` reads.
public enum ArchiveFormat: String, Sendable, CaseIterable {
  /// POSIX tar in libarchive's "pax restricted" form: plain ustar headers unless a path needs pax.
  case tar
  case tarGzip = "tar.gz"
  case tarZstd = "tar.zst"
  case tarXz = "tar.xz"
  case zip

  /// Parses a `--format` value (`tar`, `tar.gz`, `tgz`, `tar.zst`, `tzst`, `tar.xz`, `txz`, `zip`).
  public init?(name: String) {
    switch name.lowercased() {
    case "tar": self = .tar
    case "tar.gz", "tgz", "gz", "gzip": self = .tarGzip
    case "tar.zst", "tzst", "zst", "zstd": self = .tarZstd
    case "tar.xz", "txz", "xz": self = .tarXz
    case "zip": self = .zip
    default: return nil
    }
  }

  /// The format a file name's extension names, e.g. `snap.tar.zst`.
  public init?(fileName: String) {
    let lower = fileName.lowercased()
    for (suffix, format) in [
      (".tar.gz", ArchiveFormat.tarGzip), (".tgz", .tarGzip), (".tar.zst", .tarZstd),
      (".tzst", .tarZstd),
      (".tar.xz", .tarXz), (".txz", .tarXz), (".tar", .tar), (".zip", .zip),
    ] where lower.hasSuffix(suffix) {
      self = format
      return
    }
    return nil
  }

  /// The range `--level` accepts for this format, or `nil` when it has no compression.
  public var levels: ClosedRange<Int>? {
    switch self {
    case .tar: nil
    case .tarGzip, .zip: 0...9
    case .tarZstd: 1...19
    case .tarXz: 0...9
    }
  }
}
