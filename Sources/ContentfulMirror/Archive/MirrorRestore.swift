/// Restores a mirror from a complete archive, or brings a mirror forward with a delta bundle.
///
/// Extraction never uses libarchive's disk writer: each member's path is classified by
/// ``ArchiveMember`` (absolute paths, `..`, links, devices and anything outside the mirror layout
/// are refused) and written through the mirror's own atomic, symlink-refusing writer. After the
/// members, the files are checked against the archived manifest and index; the manifest (with the
/// archived sync token) is written last, so the restored mirror syncs on from that token.
public struct MirrorRestore: Sendable {
  public let layout: MirrorLayout

  public init(directory: String) {
    layout = MirrorLayout(root: directory)
  }

  /// What a restore wrote.
  public struct Summary: Sendable, Hashable {
    public var files: Int
    public var items: Int
    public var syncToken: String
  }

  /// Restores the complete archive at `archivePath` (`-` for standard input).
  ///
  /// - Parameter force: Restore into a directory that already holds files (the mirror's own files
  ///   there are replaced; other files are left alone).
  /// - Throws: ``ArchiveError`` or ``MirrorError``; on failure the files written are removed.
  public func restore(from archivePath: String, force: Bool = false) throws -> Summary {
    var fileSystem = FileSystem()
    let existing = try fileSystem.contentsOfDirectory(layout.root)
    if !existing.isEmpty && !force {
      throw ArchiveError(
        .targetNotEmpty,
        "\(layout.root) is not empty; restore into a new directory, or add --force to replace its mirror"
      )
    }
    try fileSystem.makeRoot(layout.root)
    try fileSystem.makeDirectory(layout.privateDirectory)
    let lock = try MirrorLock(path: layout.lock)
    defer { withExtendedLifetime(lock) {} }
    try removeMirrorFiles(&fileSystem)
    _ = try MirrorStore.removeTemporaryFiles(layout: layout, fileSystem: &fileSystem)
    do {
      return try extract(archivePath, fileSystem: &fileSystem)
    } catch {
      try? removeMirrorFiles(&fileSystem)
      throw error
    }
  }

  private func removeMirrorFiles(_ fileSystem: inout FileSystem) throws(MirrorError) {
    for path in [
      layout.manifest, layout.entriesDirectory, layout.assetsDirectory, layout.indexDirectory,
      layout.privateDirectory + "/items", layout.privateDirectory + "/journal", layout.checkpoint,
      layout.lastSyncReport,
    ] {
      try fileSystem.removeTree(path)
    }
  }

  private func extract(_ archivePath: String, fileSystem: inout FileSystem) throws -> Summary {
    let reader = try ArchiveReader(path: archivePath)
    var manifestBytes: [UInt8]?
    var documents: [ItemKey: (contentType: String?, locales: Set<String>)] = [:]
    var rawItems = Set<ItemKey>()
    var files = 0
    while let entry = try reader.next() {
      let member = try ArchiveMember(path: entry.path)
      switch entry.kind {
      case .directory:
        continue
      case .other(let what):
        throw ArchiveError(
          .unsafeEntry,
          "the archive holds \(Identifier.quoted(entry.path)), \(what); nothing was restored")
      case .regular:
        guard !entry.hasLinkTarget else {
          throw ArchiveError(
            .unsafeEntry,
            "the archive holds \(Identifier.quoted(entry.path)) as a link; nothing was restored")
        }
      }
      let bytes = try reader.readData(of: entry)
      let target: String
      switch member {
      case .directory:
        throw ArchiveError(
          .unsafeEntry,
          "the archive holds a file at \(Identifier.quoted(entry.path)), where the layout has a directory"
        )
      case .deletedList:
        throw ArchiveError(
          .invalidArchive,
          "this archive is a delta bundle (it has deleted.json); apply it to a mirror with `restore --apply`"
        )
      case .manifest:
        manifestBytes = bytes
        continue
      case .document(let key, let contentType, let locale):
        documents[key, default: (contentType, [])].locales.insert(locale)
        target = layout.documentPath(for: key, contentType: contentType, locale: locale)
      case .rawItem(let key):
        rawItems.insert(key)
        target = layout.rawItemPath(for: key)
      case .itemShard(let shard): target = layout.indexDirectory + "/items/\(shard).json"
      case .linkShard(let shard): target = layout.indexDirectory + "/links/\(shard).json"
      case .journal(let name): target = layout.privateDirectory + "/journal/" + name
      }
      try fileSystem.writeAtomically(bytes, to: target)
      files += 1
    }
    guard let manifestBytes else {
      throw ArchiveError(
        .invalidArchive, "the archive has no manifest.json: it is not a contentful-mirror export")
    }
    let manifest = try Self.mirrorManifest(from: manifestBytes)
    let items = try verify(
      manifest: manifest, documents: documents, rawItems: rawItems, fileSystem: fileSystem)
    try fileSystem.syncFileSystem(of: layout.root)
    try fileSystem.writeAtomically(CanonicalJSON.encode(manifest.json), to: layout.manifest)
    try fileSystem.syncFileSystem(of: layout.root)
    return Summary(files: files + 1, items: items, syncToken: manifest.syncToken)
  }

  /// The mirror manifest inside an archive's manifest, refusing archives that are not complete.
  static func mirrorManifest(from bytes: [UInt8], requireComplete: Bool = true) throws -> Manifest {
    guard var object = (try? JSONReader().read(bytes))?.objectValue else {
      throw ArchiveError(.invalidArchive, "the archive's manifest.json is not valid JSON")
    }
    guard let export = object["export"]?.objectValue else {
      throw ArchiveError(
        .invalidArchive,
        "the archive's manifest.json has no export block: it is not a contentful-mirror export")
    }
    if requireComplete && export["complete"] != true {
      throw ArchiveError(
        .invalidArchive,
        "this archive was exported with filters, --layout by-locale or --since, so it is not a whole mirror; "
          + "restore a complete export (delta bundles go through `restore --apply`)")
    }
    object["export"] = nil
    return try Manifest(json: .object(object))
  }

  /// Checks the extracted files against the archived index: every item has its raw snapshot and
  /// a document per mirrored locale, and nothing is there that the index does not list.
  private func verify(
    manifest: Manifest, documents: [ItemKey: (contentType: String?, locales: Set<String>)],
    rawItems: Set<ItemKey>, fileSystem: FileSystem
  ) throws -> Int {
    let locales = Set(manifest.mirroredLocales)
    var indexed = Set<ItemKey>()
    var problem: ArchiveError?
    try IndexStore(layout: layout).forEachRow(fileSystem: fileSystem) { key, row in
      indexed.insert(key)
      guard problem == nil else { return }
      if !rawItems.contains(key) {
        problem = ArchiveError(
          .invalidArchive, "the archive lists \(key) in its index but has no snapshot of it")
      } else if let found = documents[key], found.locales == locales,
        found.contentType == row.contentType
      {
        return
      } else {
        problem = ArchiveError(
          .invalidArchive,
          "the archive's documents for \(key) do not match its manifest (locales \(locales.sorted()))"
        )
      }
    }
    if let problem { throw problem }
    if let stray = Set(documents.keys).union(rawItems).subtracting(indexed).min() {
      throw ArchiveError(
        .invalidArchive, "the archive has files for \(stray), which its index does not list")
    }
    return indexed.count
  }

  /// Applies a delta bundle (`export --since`) to this mirror, which must be at the bundle's
  /// starting token. The result equals a direct sync to the bundle's token.
  ///
  /// - Throws: ``ArchiveError``, ``SyncError`` (`.tokenRejected` when the mirror is at another
  ///   token) or ``MirrorError``.
  public func apply(bundle archivePath: String) async throws -> SyncSummary {
    let source = try DeltaBundle(path: archivePath)
    return try await MirrorSync(directory: layout.root).run(SyncOptions(), source: source)
  }
}
