import CSystem

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The mirror's only door to the file system: POSIX calls on plain paths.
///
/// Writes are atomic (a temporary file in the same directory, then `rename(2)`) unless the
/// caller asks for ``writeInPlace(_:to:flush:)`` (a first sync's new files), files are
/// opened with `O_NOFOLLOW`, and a directory the mirror did not create as a directory (a planted
/// symbolic link) is refused rather than followed. Durability is batched: ``syncFileSystem(of:)``
/// is called once per commit point instead of an `fsync` per file.
struct FileSystem {
  /// Directories known to exist as real directories during this run.
  private var knownDirectories: Set<String> = []
  /// The mirror root the user chose: it and its ancestors are not checked for links.
  private var trustedRoot: String?
  /// Whether ``syncFileSystem(of:)`` flushes; off for a sync with ``Durability/unflushed``.
  var flushes = true

  init() {}

  /// A cursor for work inside the mirror at `root`, which ``makeRoot(_:)`` already created.
  init(trustingRoot root: String) {
    trustedRoot = root
  }

  private func isTrusted(_ path: String) -> Bool {
    guard let trustedRoot else { return false }
    return trustedRoot == path || trustedRoot.hasPrefix(path + "/")
  }

  // MARK: Reading

  /// The bytes of `path`, or `nil` when it does not exist.
  func readFileIfPresent(_ path: String) throws(MirrorError) -> [UInt8]? {
    try readFileIfPresent(path, inDirectory: AT_FDCWD, path: path)
  }

  /// The bytes of the file `name` in the open directory `directory` (see ``openDirectory(_:)``),
  /// or `nil` when it does not exist; `path` names it in messages. Relative to an open
  /// directory, the kernel looks up one name instead of every component of a path.
  func readFileIfPresent(_ name: String, inDirectory directory: Int32, path: String)
    throws(MirrorError) -> [UInt8]?
  {
    let fd = openat(directory, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
    if fd < 0 {
      let code = errno
      if code == ENOENT { return nil }
      if code == ELOOP {
        throw MirrorError(
          .unsafePath, "\(path) is a symbolic link; the mirror does not follow links. Remove it",
          path: path)
      }
      throw Self.error("cannot open", path, code)
    }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0 else { throw Self.error("cannot stat", path, errno) }
    guard (info.st_mode & S_IFMT) == S_IFREG else {
      throw MirrorError(.unsafePath, "\(path) is not a regular file; remove it", path: path)
    }
    // The mirror replaces files by rename, never in place, so the size fstat reports is the
    // size to read: one read(2) per file, no zero-filling, no extra read to find the end.
    let size = max(Int(info.st_size), 0)
    var failure: Int32?
    let result = [UInt8](unsafeUninitializedCapacity: max(size, 1)) { buffer, initialized in
      var filled = 0
      while filled < size {
        let count = read(fd, buffer.baseAddress.map { $0 + filled }, size - filled)
        if count < 0 {
          if errno == EINTR { continue }
          failure = errno
          break
        }
        if count == 0 { break }
        filled += count
      }
      initialized = filled
    }
    if let failure { throw Self.error("cannot read", path, failure) }
    return result
  }

  /// What `path` is, without following a symbolic link: `nil` when it does not exist.
  enum EntryKind { case file, directory, symbolicLink, other }

  func entryKind(_ path: String) throws(MirrorError) -> EntryKind? {
    var info = stat()
    guard lstat(path, &info) == 0 else {
      if errno == ENOENT { return nil }
      throw Self.error("cannot stat", path, errno)
    }
    return Self.kind(of: info.st_mode)
  }

  /// Opens directory `path` for ``entries(ofDirectory:path:)`` and reads relative to it; the
  /// caller closes the descriptor. A symbolic link is refused.
  func openDirectory(_ path: String) throws(MirrorError) -> Int32 {
    let fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
    guard fd >= 0 else {
      let code = errno
      if code == ELOOP || code == ENOTDIR {
        throw MirrorError(
          .unsafePath, "\(path) is not a directory (a symbolic link?); remove it", path: path)
      }
      throw Self.error("cannot open", path, code)
    }
    return fd
  }

  /// The names and kinds of the entries of the open directory `directory`, without `.` and
  /// `..`, in no particular order. Kinds come from the directory itself where the file system records
  /// them, so listing costs no `stat` per entry.
  func entries(ofDirectory directory: Int32, path: String) throws(MirrorError) -> [(
    name: String, kind: EntryKind
  )] {
    let listed = dup(directory)
    guard listed >= 0, let dir = fdopendir(listed) else {
      throw Self.error("cannot list", path, errno)
    }
    defer { closedir(dir) }
    var entries: [(name: String, kind: EntryKind)] = []
    try Self.forEachEntry(of: dir) { name, type throws(MirrorError) in
      let kind: EntryKind
      switch Int32(type) {
      case Int32(DT_REG): kind = .file
      case Int32(DT_DIR): kind = .directory
      case Int32(DT_LNK): kind = .symbolicLink
      case Int32(DT_UNKNOWN):
        var info = stat()
        guard fstatat(directory, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else {
          throw Self.error("cannot stat", path + "/" + name, errno)
        }
        kind = Self.kind(of: info.st_mode)
      default: kind = .other
      }
      entries.append((name, kind))
    }
    return entries
  }

  /// Calls `body` with the name and `d_type` of each entry of `dir` but `.` and `..`.
  private static func forEachEntry(
    of dir: OpaquePointer, _ body: (String, UInt8) throws(MirrorError) -> Void
  ) throws(MirrorError) {
    while let entry = readdir(dir) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
      }
      if name != "." && name != ".." { try body(name, entry.pointee.d_type) }
    }
  }

  private static func kind(of mode: mode_t) -> EntryKind {
    switch mode & S_IFMT {
    case S_IFREG: .file
    case S_IFDIR: .directory
    case S_IFLNK: .symbolicLink
    default: .other
    }
  }

  /// Whether anything (file, directory or link) exists at `path`.
  func exists(_ path: String) -> Bool {
    var info = stat()
    return lstat(path, &info) == 0
  }

  /// The names in directory `path`, without `.` and `..`; empty when it does not exist.
  func contentsOfDirectory(_ path: String) throws(MirrorError) -> [String] {
    guard let dir = opendir(path) else {
      if errno == ENOENT { return [] }
      throw Self.error("cannot list", path, errno)
    }
    defer { closedir(dir) }
    var names: [String] = []
    try Self.forEachEntry(of: dir) { name, _ in names.append(name) }
    return names.sorted()
  }

  // MARK: Writing

  /// Replaces `path` with `bytes` atomically, creating parent directories as needed.
  ///
  /// - Parameter flush: `fsync(2)` the file before renaming it. The sync engine normally leaves
  ///   this off and flushes once per commit point with ``syncFileSystem(of:)``; the per-file mode
  ///   exists to measure the difference (`--durability fsync`).
  mutating func writeAtomically(_ bytes: [UInt8], to path: String, flush: Bool = false)
    throws(MirrorError)
  {
    let temporary = Self.parent(of: path) + "/." + Self.lastComponent(of: path) + ".tmp"
    try create(bytes, at: temporary, reportedAs: path, flush: flush)
    guard rename(temporary, path) == 0 else {
      let code = errno
      unlink(temporary)
      throw Self.error("cannot replace", path, code)
    }
  }

  /// Writes `bytes` straight to `path` (created or truncated), creating parent directories as
  /// needed: one `rename(2)` fewer than ``writeAtomically(_:to:flush:)``, but a reader or a
  /// killed run can see the file half written. Only for files whose loss a resumed sync repairs
  /// (see ``MirrorStore``).
  mutating func writeInPlace(_ bytes: [UInt8], to path: String, flush: Bool = false)
    throws(MirrorError)
  {
    try create(bytes, at: path, reportedAs: path, flush: flush)
  }

  /// Creates (or truncates) `file` and writes `bytes` to it; a failure removes `file`.
  private mutating func create(
    _ bytes: [UInt8], at file: String, reportedAs path: String, flush: Bool
  ) throws(MirrorError) {
    let parent = Self.parent(of: file)
    try makeDirectory(parent)
    var fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o644)
    if fd < 0 && errno == ENOENT {
      // Another cursor removed a directory this one remembered: forget and recreate it.
      var directory = parent
      while !directory.isEmpty && knownDirectories.remove(directory) != nil {
        directory = Self.parent(of: directory)
      }
      try makeDirectory(parent)
      fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o644)
    }
    guard fd >= 0 else { throw Self.error("cannot create", file, errno) }
    var written = 0
    let failure: Int32? = bytes.withUnsafeBytes { buffer in
      while written < buffer.count {
        let count = write(fd, buffer.baseAddress.map { $0 + written }, buffer.count - written)
        if count < 0 {
          if errno == EINTR { continue }
          return errno
        }
        written += count
      }
      return nil
    }
    if let failure {
      close(fd)
      unlink(file)
      throw Self.error("cannot write", path, failure)
    }
    if flush && fsync(fd) != 0 {
      let code = errno
      close(fd)
      unlink(file)
      throw Self.error("cannot flush", path, code)
    }
    guard close(fd) == 0 else {
      let code = errno
      unlink(file)
      throw Self.error("cannot write", path, code)
    }
  }

  /// Creates the mirror's root directory (and its parents) and trusts it: the user chose this
  /// path, so symbolic links above and at the root are theirs to have. Everything below the root
  /// is checked by ``makeDirectory(_:)`` and ``isRealDirectory(_:)``.
  mutating func makeRoot(_ path: String) throws(MirrorError) {
    if mkdir(path, 0o755) != 0 {
      switch errno {
      case EEXIST: break
      case ENOENT:
        try makeRoot(Self.parent(of: path))
        if mkdir(path, 0o755) != 0 && errno != EEXIST {
          throw Self.error("cannot create directory", path, errno)
        }
      default: throw Self.error("cannot create directory", path, errno)
      }
    }
    knownDirectories.insert(path)
    trustedRoot = path
  }

  /// Creates `path` and its parents below the root as real directories; refuses a symbolic link
  /// or a file standing where a directory belongs.
  mutating func makeDirectory(_ path: String) throws(MirrorError) {
    if path.isEmpty || knownDirectories.contains(path) || isTrusted(path) { return }
    try makeDirectory(Self.parent(of: path))
    if mkdir(path, 0o755) == 0 {
      knownDirectories.insert(path)
      return
    }
    guard errno == EEXIST else { throw Self.error("cannot create directory", path, errno) }
    guard try isRealDirectory(path) else {
      throw Self.error("cannot create directory", path, ENOENT)
    }
  }

  /// Whether `path` (below the trusted root) exists as a real directory, every component of it
  /// checked with `lstat`. A missing component gives `false`.
  ///
  /// - Throws: ``MirrorError`` `.unsafePath` when a component is a symbolic link or a file.
  mutating func isRealDirectory(_ path: String) throws(MirrorError) -> Bool {
    if path.isEmpty || knownDirectories.contains(path) || isTrusted(path) { return true }
    guard try isRealDirectory(Self.parent(of: path)) else { return false }
    var info = stat()
    guard lstat(path, &info) == 0 else {
      if errno == ENOENT { return false }
      throw Self.error("cannot stat", path, errno)
    }
    guard (info.st_mode & S_IFMT) == S_IFDIR else {
      throw MirrorError(
        .unsafePath,
        "\(path) is a symbolic link or a file where the mirror keeps a directory; "
          + "the mirror will not follow it out of the mirror. Remove it and run the sync again",
        path: path)
    }
    knownDirectories.insert(path)
    return true
  }

  /// Removes file `path`; a missing file is not an error.
  func removeFile(_ path: String) throws(MirrorError) {
    if unlink(path) != 0 && errno != ENOENT { throw Self.error("cannot remove", path, errno) }
  }

  /// Removes directory `path` if it is empty; reports whether it is gone.
  @discardableResult
  mutating func removeDirectoryIfEmpty(_ path: String) -> Bool {
    if rmdir(path) == 0 || errno == ENOENT {
      knownDirectories.remove(path)
      return true
    }
    return false
  }

  /// Removes a tree the mirror owns, without following symbolic links inside it.
  mutating func removeTree(_ path: String) throws(MirrorError) {
    var info = stat()
    guard lstat(path, &info) == 0 else { return }
    if (info.st_mode & S_IFMT) == S_IFDIR {
      for name in try contentsOfDirectory(path) { try removeTree(path + "/" + name) }
      if rmdir(path) != 0 { throw Self.error("cannot remove", path, errno) }
      knownDirectories.remove(path)
    } else {
      try removeFile(path)
    }
  }

  /// Whether `name` is a temporary file of ``writeAtomically(_:to:flush:)``.
  static func isTemporaryName(_ name: String) -> Bool {
    name.hasPrefix(".") && name.hasSuffix(".tmp")
  }

  /// Removes the temporary files a killed writer left in `path` (and, if `recursive`, below it),
  /// without following symbolic links.
  ///
  /// - Returns: How many were removed.
  mutating func removeTemporaryFiles(under path: String, recursive: Bool = true)
    throws(MirrorError) -> Int
  {
    var removed = 0
    for name in try contentsOfDirectory(path) {
      let child = path + "/" + name
      var info = stat()
      guard lstat(child, &info) == 0 else { continue }
      if (info.st_mode & S_IFMT) == S_IFDIR {
        if recursive { removed += try removeTemporaryFiles(under: child) }
      } else if (info.st_mode & S_IFMT) == S_IFREG && Self.isTemporaryName(name) {
        try removeFile(child)
        removed += 1
      }
    }
    return removed
  }

  // MARK: Durability

  /// Flushes everything written so far on the file system holding `path` to stable storage
  /// (nothing when ``flushes`` is off).
  func syncFileSystem(of path: String) throws(MirrorError) {
    guard flushes else { return }
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw Self.error("cannot open", path, errno) }
    defer { close(fd) }
    guard cm_syncfs(fd) == 0 else { throw Self.error("cannot flush", path, errno) }
  }

  // MARK: Paths

  static func parent(of path: String) -> String {
    guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "" }
    return String(path[..<slash])
  }

  static func lastComponent(of path: String) -> String {
    guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return path }
    return String(path[path.index(after: slash)...])
  }

  static func error(_ action: String, _ path: String, _ code: Int32) -> MirrorError {
    let reason = String(cString: strerror(code))
    var advice = ""
    if code == ENOSPC || code == EDQUOT {
      advice = "; free some space and run the command again (the last committed mirror is intact)"
    } else if code == EACCES || code == EPERM || code == EROFS {
      advice = "; check the permissions of the mirror directory"
    }
    return MirrorError(.io, "\(action) \(path): \(reason)\(advice)", path: path, errno: code)
  }
}
