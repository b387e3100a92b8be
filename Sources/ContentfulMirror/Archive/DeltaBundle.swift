/// A delta bundle (`export --since`) read back as a ``SpaceSource``: the bundle's locales and
/// content types, and one sync page of its raw snapshots and deletions leading to its token.
///
/// Applying a bundle therefore runs the ordinary sync engine, so the mirror it produces is the
/// one a direct sync would have produced.
struct DeltaBundle: SpaceSource {
  let since: String
  let token: String
  private let locales: [UInt8]
  private let contentTypes: [UInt8]
  private let page: [UInt8]

  init(path: String) throws {
    let reader = try ArchiveReader(path: path)
    var manifestBytes: [UInt8]?
    var deletedBytes: [UInt8]?
    // Snapshot files go into the page verbatim, so the applied mirror keeps the same bytes as
    // the mirror the bundle came from.
    var items: [[UInt8]] = []
    while let entry = try reader.next() {
      let member = try ArchiveMember(path: entry.path)
      guard case .regular = entry.kind, !entry.hasLinkTarget else {
        if case .directory = entry.kind { continue }
        throw ArchiveError(
          .unsafeEntry,
          "the bundle holds \(Identifier.quoted(entry.path)), which is not a plain file")
      }
      switch member {
      case .manifest: manifestBytes = try reader.readData(of: entry)
      case .deletedList: deletedBytes = try reader.readData(of: entry)
      case .rawItem:
        let bytes = try reader.readData(of: entry)
        guard (try? JSONReader().read(bytes))?.objectValue != nil else {
          throw ArchiveError(.invalidArchive, "\(entry.path) in the bundle is not a JSON object")
        }
        items.append(bytes.droppingTrailingWhitespace())
      default: continue  // documents and index are re-derived from the snapshots
      }
    }
    guard let manifestBytes, let object = (try? JSONReader().read(manifestBytes))?.objectValue,
      let since = object["export"]?["since"]?.stringValue, let deletedBytes,
      let deleted = (try? JSONReader().read(deletedBytes))?["deleted"]?.arrayValue
    else {
      throw ArchiveError(
        .invalidArchive,
        "this is not a delta bundle (no export.since or deleted.json); restore it without --apply")
    }
    let manifest = try MirrorRestore.mirrorManifest(from: manifestBytes, requireComplete: false)
    self.since = since
    self.token = manifest.syncToken
    for row in deleted {
      guard let key = row["key"]?.stringValue.flatMap(ItemKey.init) else { continue }
      let deletion = JSONValue.object(
        JSONObject([
          "sys": .object(
            JSONObject(["type": .string("Deleted" + key.kind.rawValue), "id": .string(key.id)]))
        ]))
      items.append(CanonicalJSON.encodeCompact(deletion).dropLast())
    }
    var page = Array(#"{"sys":{"type":"Array"},"items":["#.utf8)
    for (index, item) in items.enumerated() {
      if index > 0 { page.append(UInt8(ascii: ",")) }
      page.append(contentsOf: item)
    }
    page.append(contentsOf: "],\"nextSyncUrl\":".utf8)
    page.append(
      contentsOf: CanonicalJSON.encodeCompact(.string("bundle:?sync_token=" + manifest.syncToken)))
    page.append(UInt8(ascii: "}"))
    self.page = page
    let localeItems = manifest.model.locales.map(Manifest.json(for:))
    locales = CanonicalJSON.encode(
      .object(
        JSONObject(["items": .array(localeItems), "total": .number(String(localeItems.count))])))
    let typeItems: [JSONValue] = manifest.model.contentTypes.values.sorted { $0.id < $1.id }.map {
      type in
      var fields: [JSONValue] = []
      for field in type.fields {
        var object = JSONObject()
        object["id"] = .string(field.id)
        object["type"] = .string(field.type)
        object["localized"] = .bool(field.localized)
        if field.type == "Array" {
          var items = JSONObject()
          if let itemsType = field.itemsType { items["type"] = .string(itemsType) }
          if let linkType = field.linkType { items["linkType"] = .string(linkType) }
          object["items"] = .object(items)
        } else if let linkType = field.linkType {
          object["linkType"] = .string(linkType)
        }
        fields.append(.object(object))
      }
      var object = JSONObject()
      object["sys"] = .object(JSONObject(["id": .string(type.id)]))
      if let name = type.name { object["name"] = .string(name) }
      object["displayField"] = type.displayField.map(JSONValue.string) ?? .null
      object["fields"] = .array(fields)
      return .object(object)
    }
    contentTypes = CanonicalJSON.encode(
      .object(JSONObject(["items": .array(typeItems), "total": .number(String(typeItems.count))])))
  }

  func fetch(_ request: SourceRequest) async throws(SyncError) -> [UInt8] {
    switch request {
    case .locales: return locales
    case .contentTypes: return contentTypes
    case .initialSync:
      throw SyncError(
        .invalidConfiguration,
        "a delta bundle applies only to an existing mirror; restore a complete export first")
    case .sync(let requested):
      guard requested == since else {
        throw SyncError(
          .tokenRejected,
          "this bundle continues from sync token \(Identifier.quoted(since)), but the mirror is at "
            + "\(Identifier.quoted(requested)); export a bundle --since the mirror's token instead")
      }
      return page
    }
  }
}
