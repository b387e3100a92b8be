#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Which members an export writes, in which order, with which bytes.
///
/// A complete export walks the mirror directory in path-byte order (memory bounded by the largest
/// directory); a filtered, by-locale or delta export lists its members, sorts them and streams
/// them. Either way each document is read from disk and written once.
struct ExportPlan {
  private enum Source {
    /// A file of the mirror: `name` in the open directory `directory` (`AT_FDCWD` when `name`
    /// is the whole path); `path` names it in messages.
    case file(path: String, directory: Int32 = AT_FDCWD, name: String)
    case bytes([UInt8])
  }

  let layout: MirrorLayout
  let options: ExportOptions
  let locales: [String]
  let modificationTime: Int
  private let manifestBytes: [UInt8]
  private var included: [ItemKey: IndexStore.ItemRow] = [:]
  private var itemCount = 0
  private var deleted: [(key: ItemKey, contentType: String?)] = []

  init(
    layout: MirrorLayout, manifest: Manifest, options: ExportOptions, fileSystem: inout FileSystem
  ) throws {
    self.layout = layout
    self.options = options
    let mirrored = manifest.mirroredLocales
    for code in options.locales ?? [] where !mirrored.contains(code) {
      throw ArchiveError(
        .invalidOptions,
        "the mirror has no locale \(Identifier.quoted(code)) (it has \(mirrored.joined(separator: ", ")))"
      )
    }
    for type in options.contentTypes ?? [] where manifest.model.contentTypes[type] == nil {
      throw ArchiveError(
        .invalidOptions, "the mirror has no content type \(Identifier.quoted(type))")
    }
    locales = options.locales.map { wanted in mirrored.filter(wanted.contains) } ?? mirrored

    var changes: SyncJournal.Changes?
    if let since = options.since {
      changes = try SyncJournal(layout: layout).changes(
        since: since, currentToken: manifest.syncToken, fileSystem: fileSystem)
      if changes == nil {
        throw ArchiveError(
          .sinceTooOld,
          "the mirror does not remember sync token \(Identifier.quoted(since)) (it keeps the last "
            + "\(SyncJournal.capacity) syncs, and none across a --full sync); export the whole mirror instead"
        )
      }
    }
    let types = options.contentTypes.map(Set.init)
    var newest: Int?
    var included: [ItemKey: IndexStore.ItemRow] = [:]
    var count = 0
    try IndexStore(layout: layout).forEachRow(fileSystem: fileSystem) { key, row in
      if let changes, !changes.upserted.contains(key) { return }
      if let types, key.kind == .entry, !types.contains(row.contentType ?? "") { return }
      count += 1
      if let updated = row.updatedAt.flatMap(ISO8601.epochSeconds) {
        newest = max(newest ?? updated, updated)
      }
      if !options.isComplete { included[key] = row }
    }
    self.included = included
    self.itemCount = count
    if let changes {
      deleted = changes.deleted.map { (key: $0.key, contentType: $0.value) }.sorted {
        $0.key < $1.key
      }
    }
    modificationTime = options.sourceDateEpoch ?? newest ?? 0
    manifestBytes = CanonicalJSON.encode(
      Self.exportManifest(
        manifest, options: options, locales: locales, items: count, deleted: deleted.count))
  }

  func summary(members: Int) -> ExportSummary {
    ExportSummary(
      members: members, items: itemCount, deleted: deleted.count, modificationTime: modificationTime
    )
  }

  /// Writes every member; returns how many.
  func write(to writer: ArchiveWriter, fileSystem: inout FileSystem) throws -> Int {
    var members = 0
    let reader = FileSystem()  // reads need no directory cache; the walk keeps its own
    func add(_ path: String, _ source: Source) throws {
      let bytes: [UInt8]
      switch source {
      case .bytes(let generated): bytes = generated
      case .file(let file, let directory, let name):
        guard let read = try reader.readFileIfPresent(name, inDirectory: directory, path: file)
        else {
          throw MirrorError(
            .corrupt,
            "\(file) is missing although the index lists it; run `contentful-mirror sync --full`")
        }
        bytes = read
      }
      try writer.add(path: path, bytes: bytes, modificationTime: modificationTime)
      members += 1
    }
    if options.isComplete {
      try walk("", fileSystem: &fileSystem, add: add)
    } else {
      for (path, source) in try listedMembers() { try add(path, source) }
    }
    return members
  }

  // MARK: Complete exports: a sorted walk of the mirror

  /// Visits `relative` (a directory below the root) in path-byte order: names are compared with
  /// a `/` after directory names, which is how their paths compare.
  private func walk(
    _ relative: String, fileSystem: inout FileSystem, add: (String, Source) throws -> Void
  ) throws {
    let directory = relative.isEmpty ? layout.root : layout.root + "/" + relative
    let fd = try fileSystem.openDirectory(directory)
    defer { close(fd) }
    var children: [(sortKey: String, name: String, isDirectory: Bool)] = []
    for (name, kind) in try fileSystem.entries(ofDirectory: fd, path: directory) {
      let path = relative.isEmpty ? name : relative + "/" + name
      guard Self.isExported(path) else { continue }
      guard kind == .file || kind == .directory else {
        let full = directory + "/" + name
        throw MirrorError(
          .unsafePath,
          "\(full) is a symbolic link or special file inside the mirror; remove it and export again",
          path: full)
      }
      let isDirectory = kind == .directory
      if !isDirectory && FileSystem.isTemporaryName(name) { continue }  // a killed writer's
      children.append((isDirectory ? name + "/" : name, name, isDirectory))
    }
    children.sort { $0.sortKey.utf8.lexicographicallyPrecedes($1.sortKey.utf8) }
    for child in children {
      let path = relative.isEmpty ? child.name : relative + "/" + child.name
      if child.isDirectory {
        try walk(path, fileSystem: &fileSystem, add: add)
      } else if path == "manifest.json" {
        try add(path, .bytes(manifestBytes))
      } else {
        try add(path, .file(path: directory + "/" + child.name, directory: fd, name: child.name))
      }
    }
  }

  /// What of the mirror directory a complete export carries: the public tree, the raw snapshots
  /// and the sync journal; not the lock, the checkpoint or reports.
  private static func isExported(_ path: String) -> Bool {
    let slash = UInt8(ascii: "/")
    guard let end = path.utf8.firstIndex(of: slash) else {
      return ["manifest.json", "entries", "assets", "index", ".mirror"].contains(path)
    }
    let rest = path[path.utf8.index(after: end)...]
    guard path[..<end] == ".mirror", !rest.utf8.contains(slash) else {
      return true  // ids may start with a dot; temporary files are skipped by the walk
    }
    return rest == "items" || rest == "journal"
  }

  // MARK: Filtered, by-locale and delta exports: a sorted list

  private func listedMembers() throws -> [(String, Source)] {
    var members: [(String, Source)] = [("manifest.json", .bytes(manifestBytes))]
    for (key, row) in included {
      for locale in locales {
        let source = layout.documentPath(for: key, contentType: row.contentType, locale: locale)
        members.append(
          (
            archivePath(for: key, contentType: row.contentType, locale: locale),
            .file(path: source, name: source)
          ))
      }
      if options.since != nil && options.layout == .mirror {
        let raw = layout.rawItemPath(for: key)
        members.append((String(raw.dropFirst(layout.root.count + 1)), .file(path: raw, name: raw)))
      }
    }
    if options.layout == .mirror { members.append(contentsOf: cutIndex()) }
    if let since = options.since {
      let rows: [JSONValue] = deleted.map { removal in
        .object(
          JSONObject([
            "key": .string(removal.key.description),
            "paths": .array(
              locales.map {
                .string(archivePath(for: removal.key, contentType: removal.contentType, locale: $0))
              }),
          ]))
      }
      let document = JSONValue.object(
        JSONObject(["since": .string(since), "deleted": .array(rows)]))
      members.append(("deleted.json", .bytes(CanonicalJSON.encode(document))))
    }
    return members.sorted { $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }
  }

  private func archivePath(for key: ItemKey, contentType: String?, locale: String) -> String {
    switch (options.layout, key.kind) {
    case (.mirror, _):
      String(
        layout.documentPath(for: key, contentType: contentType, locale: locale).dropFirst(
          layout.root.count + 1))
    case (.byLocale, .entry): "\(locale)/entries/\(contentType ?? "_")/\(key.id).json"
    case (.byLocale, .asset): "\(locale)/assets/\(key.id).json"
    }
  }

  /// The item and link index restricted to the included items; links to anything else dangle.
  private func cutIndex() -> [(String, Source)] {
    var itemShards: [Int: [ItemKey: IndexStore.ItemRow]] = [:]
    var linkShards: [Int: [ItemKey: IndexStore.LinkRow]] = [:]
    for (key, row) in included {
      itemShards[IndexStore.shard(of: key), default: [:]][key] = row
      for target in row.linksTo {
        let shard = IndexStore.shard(of: target)
        var link =
          linkShards[shard]?[target]
          ?? IndexStore.LinkRow(linkedFrom: [], dangling: included[target] == nil)
        link.linkedFrom.insert(key)
        linkShards[shard, default: [:]][target] = link
      }
    }
    var members: [(String, Source)] = []
    for (shard, rows) in itemShards {
      members.append(
        (
          "index/items/\(IndexStore.shardName(shard)).json",
          .bytes(IndexShardCodec.encode(items: rows))
        ))
    }
    for (shard, rows) in linkShards {
      members.append(
        (
          "index/links/\(IndexStore.shardName(shard)).json",
          .bytes(IndexShardCodec.encode(links: rows))
        ))
    }
    return members
  }

  // MARK: The archive's manifest

  private static func exportManifest(
    _ manifest: Manifest, options: ExportOptions, locales: [String], items: Int, deleted: Int
  ) -> JSONValue {
    var object = manifest.json.objectValue ?? JSONObject()
    if !options.isComplete {
      object["mirroredLocales"] = .array(locales.map(JSONValue.string))
      if let types = options.contentTypes, var all = object["contentTypes"]?.objectValue {
        for key in all.keys where !types.contains(key) { all[key] = nil }
        object["contentTypes"] = .object(all)
      }
    }
    var export = JSONObject()
    export["complete"] = .bool(options.isComplete)
    export["layout"] = .string(options.layout.rawValue)
    export["locales"] = options.locales.map { _ in .array(locales.map(JSONValue.string)) } ?? .null
    export["contentTypes"] =
      options.contentTypes.map { .array($0.sorted().map(JSONValue.string)) } ?? .null
    export["since"] = options.since.map(JSONValue.string) ?? .null
    export["items"] = .number(String(items))
    if options.since != nil { export["deleted"] = .number(String(deleted)) }
    object["export"] = .object(export)
    return .object(object)
  }
}
