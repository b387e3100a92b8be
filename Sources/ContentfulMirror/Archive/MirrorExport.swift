#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Writes a mirror, or a filtered or delta part of it, as a reproducible archive.
///
/// The same mirror state and options always give the same archive bytes: members are sorted by
/// path bytes, carry fixed metadata (see ``ArchiveWriter``) and one mtime from
/// `SOURCE_DATE_EPOCH` or the newest `sys.updatedAt` included. The archive's `manifest.json`
/// describes exactly what is inside: a filtered or delta archive carries an item and link index
/// cut to its items (links to anything left out marked dangling) and an `export` block naming
/// the filters. The output goes to a temporary file renamed into place at the end, so a failed
/// export never leaves a partial archive at the destination.
public struct MirrorExport: Sendable {
  public let layout: MirrorLayout

  public init(directory: String) {
    layout = MirrorLayout(root: directory)
  }

  /// Exports to `destination` (`-` for standard output).
  ///
  /// - Throws: ``ArchiveError`` or ``MirrorError`` with what to do.
  public func write(to destination: String, options: ExportOptions) throws -> ExportSummary {
    if let level = options.level {
      guard let range = options.format.levels, range.contains(level) else {
        throw ArchiveError(
          .invalidOptions,
          options.format.levels.map {
            "--level for \(options.format.rawValue) must be in \($0.lowerBound)...\($0.upperBound)"
          }
            ?? "\(options.format.rawValue) is not compressed: --level does not apply")
      }
    }
    if options.format == .zip {
      // Zip stores DOS timestamps in local time: pin the process's zone so the bytes do not
      // depend on where the export runs. (A process-wide setting; tar formats need none.)
      setenv("TZ", "UTC0", 1)
      tzset()
    }
    var fileSystem = FileSystem()
    guard try fileSystem.isRealDirectory(layout.privateDirectory) else {
      throw MirrorError(
        .notAMirror,
        "\(layout.root) is not a mirror (no .mirror directory); run `contentful-mirror sync` first")
    }
    let lock = try MirrorLock(path: layout.lock)
    defer { withExtendedLifetime(lock) {} }
    guard let manifest = try MirrorStore.readManifest(layout: layout, fileSystem: fileSystem) else {
      throw MirrorError(
        .notAMirror, "\(layout.root) has no manifest.json; run `contentful-mirror sync` first")
    }
    let plan = try ExportPlan(
      layout: layout, manifest: manifest, options: options, fileSystem: &fileSystem)

    if destination == "-" {
      let writer = try ArchiveWriter(
        format: options.format, level: options.level, fd: STDOUT_FILENO)
      let members = try plan.write(to: writer, fileSystem: &fileSystem)
      try writer.finish()
      return plan.summary(members: members)
    }
    let temporary =
      FileSystem.parent(of: destination).isEmpty
      ? ".\(destination).tmp-\(getpid())"
      : FileSystem.parent(of: destination) + "/." + FileSystem.lastComponent(of: destination)
        + ".tmp-\(getpid())"
    Self.removeAbandonedTemporaries(of: destination)
    let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o644)
    guard fd >= 0 else {
      throw ArchiveError(.io, "cannot create \(destination): \(String(cString: strerror(errno)))")
    }
    var closed = false
    defer {
      if !closed { close(fd) }
      unlink(temporary)
    }
    let members: Int
    do {
      let writer = try ArchiveWriter(format: options.format, level: options.level, fd: fd)
      members = try plan.write(to: writer, fileSystem: &fileSystem)
      try writer.finish()
    }
    guard fsync(fd) == 0, close(fd) == 0 else {
      closed = true
      throw ArchiveError(.io, "cannot write \(destination): \(String(cString: strerror(errno)))")
    }
    closed = true
    guard rename(temporary, destination) == 0 else {
      throw ArchiveError(
        .io, "cannot move the archive to \(destination): \(String(cString: strerror(errno)))")
    }
    return plan.summary(members: members)
  }

  /// Removes `.<name>.tmp-<pid>` files beside `destination` whose export process no longer
  /// exists: what an export killed before its rename leaves behind.
  private static func removeAbandonedTemporaries(of destination: String) {
    let parent = FileSystem.parent(of: destination)
    let prefix = "." + FileSystem.lastComponent(of: destination) + ".tmp-"
    guard let names = try? FileSystem().contentsOfDirectory(parent.isEmpty ? "." : parent) else {
      return
    }
    for name in names where name.hasPrefix(prefix) {
      guard let pid = Int32(name.dropFirst(prefix.count)), pid > 0,
        kill(pid, 0) != 0 && errno == ESRCH
      else { continue }
      unlink(parent.isEmpty ? name : parent + "/" + name)
    }
  }
}
