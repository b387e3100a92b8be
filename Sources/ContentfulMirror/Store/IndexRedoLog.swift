#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The changed index shards of one flush, written as a single file before any shard is.
///
/// An item row and the reverse link rows derived from it live in different shard files, so a
/// crash between shard writes would leave the two indexes out of step, and replaying the page
/// would not repair it (the replay sees the new item row and derives no change). With the redo
/// log on disk first, a store that finds it rolls the flush forward before anything else.
///
/// Format: a header line, then per shard `W <path> <byte count>\n<bytes>` (write) or
/// `D <path>\n` (remove), paths relative to the mirror root.
struct IndexRedoLog {
  /// One shard change.
  struct Change: Equatable, Sendable {
    var relativePath: String
    /// The new contents, or `nil` to remove the shard.
    var bytes: [UInt8]?
  }

  static let header = Array("contentful-mirror index redo 1\n".utf8)

  let layout: MirrorLayout

  var path: String { layout.privateDirectory + "/index-redo" }

  /// Writes a log one shard at a time, so a flush of every shard (the end of a `--full` sync)
  /// never holds the whole index twice in memory.
  final class Writer {
    private let log: IndexRedoLog
    private let temporary: String
    private var fd: Int32
    private var buffer: [UInt8] = []

    /// Starts a log (replacing a stale temporary one).
    init(_ log: IndexRedoLog) throws(MirrorError) {
      self.log = log
      temporary = log.path + ".tmp"
      fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o644)
      guard fd >= 0 else { throw FileSystem.error("cannot create", temporary, errno) }
      buffer = IndexRedoLog.header
      buffer.reserveCapacity(1 << 20)
    }

    deinit {
      if fd >= 0 {
        close(fd)
        unlink(temporary)
      }
    }

    /// Adds one shard change.
    func append(_ change: Change) throws(MirrorError) {
      if let contents = change.bytes {
        buffer += Array("W \(change.relativePath) \(contents.count)\n".utf8)
        buffer += contents
      } else {
        buffer += Array("D \(change.relativePath)\n".utf8)
      }
      if buffer.count >= 1 << 20 { try writeBuffer() }
    }

    /// Puts the complete log in place and makes it durable, with everything written before it.
    func commit(fileSystem: FileSystem) throws(MirrorError) {
      try writeBuffer()
      let closed = close(fd)
      fd = -1
      guard closed == 0 else { throw FileSystem.error("cannot write", temporary, errno) }
      guard rename(temporary, log.path) == 0 else {
        let code = errno
        unlink(temporary)
        throw FileSystem.error("cannot rename", temporary, code)
      }
      try fileSystem.syncFileSystem(of: log.layout.root)
    }

    private func writeBuffer() throws(MirrorError) {
      var offset = 0
      while offset < buffer.count {
        let written = buffer.withUnsafeBytes { bytes in
          write(fd, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
        }
        if written < 0 && errno == EINTR { continue }
        guard written > 0 else { throw FileSystem.error("cannot write", temporary, errno) }
        offset += written
      }
      buffer.removeAll(keepingCapacity: true)
    }
  }

  /// Applies `changes` to the shard files.
  func apply(_ changes: [Change], fileSystem: inout FileSystem) throws(MirrorError) {
    for change in changes { try apply(change, fileSystem: &fileSystem) }
  }

  /// Applies one shard change.
  func apply(_ change: Change, fileSystem: inout FileSystem) throws(MirrorError) {
    let target = layout.root + "/" + change.relativePath
    if let contents = change.bytes {
      try fileSystem.writeAtomically(contents, to: target)
    } else {
      try fileSystem.removeFile(target)
    }
  }

  /// Forgets the log once the shards it describes are durable.
  func clear(fileSystem: FileSystem) throws(MirrorError) {
    try fileSystem.removeFile(path)
  }

  /// Rolls forward a flush a crash interrupted, if there is one.
  ///
  /// - Returns: Whether a log was found and applied.
  @discardableResult
  func recover(fileSystem: inout FileSystem) throws(MirrorError) -> Bool {
    guard let bytes = try fileSystem.readFileIfPresent(path) else { return false }
    guard let changes = Self.parse(bytes) else {
      throw MirrorError(
        .corrupt,
        "\(path) is damaged; run `contentful-mirror sync --full` to rebuild the mirror", path: path)
    }
    try apply(changes, fileSystem: &fileSystem)
    try fileSystem.syncFileSystem(of: layout.root)
    try clear(fileSystem: fileSystem)
    return true
  }

  /// The changes in a log, or `nil` when it is not a complete, well-formed log whose paths are
  /// all index shards.
  static func parse(_ bytes: [UInt8]) -> [Change]? {
    guard bytes.starts(with: header) else { return nil }
    var changes: [Change] = []
    var index = header.count
    while index < bytes.count {
      guard let newline = bytes[index...].firstIndex(of: 10) else { return nil }
      let fields = bytes[index..<newline].split(separator: 32).map {
        String(decoding: $0, as: UTF8.self)
      }
      index = newline + 1
      guard fields.count >= 2, isShardPath(fields[1]) else { return nil }
      switch (fields[0], fields.count) {
      case ("D", 2):
        changes.append(Change(relativePath: fields[1], bytes: nil))
      case ("W", 3):
        guard let count = Int(fields[2]), count >= 0, index + count <= bytes.count else {
          return nil
        }
        changes.append(Change(relativePath: fields[1], bytes: Array(bytes[index..<index + count])))
        index += count
      default:
        return nil
      }
    }
    return changes
  }

  /// `index/items/<hex>.json` or `index/links/<hex>.json`, nothing else.
  private static func isShardPath(_ path: String) -> Bool {
    let parts = path.split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count == 3, parts[0] == "index", parts[1] == "items" || parts[1] == "links",
      parts[2].hasSuffix(".json")
    else { return false }
    let name = parts[2].dropLast(5)
    return !name.isEmpty && name.count <= 3 && name.allSatisfy(\.isHexDigit)
  }
}
