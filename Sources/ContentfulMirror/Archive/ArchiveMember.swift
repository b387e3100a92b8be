/// What a path inside a mirror archive is, or why it may not be extracted.
///
/// Restore accepts only paths of the mirror layout, each component validated like ids during a
/// sync; anything else (absolute paths, `..`, unknown files) is refused before a byte is written.
enum ArchiveMember: Hashable {
  case manifest
  case deletedList
  case document(ItemKey, contentType: String?, locale: String)
  case rawItem(ItemKey)
  case itemShard(String)
  case linkShard(String)
  case journal(String)
  /// A directory of the layout: nothing to write.
  case directory

  /// Classifies `path` (a leading `./` is allowed).
  ///
  /// - Throws: ``ArchiveError`` `.unsafeEntry` for a path that is not part of a mirror.
  init(path rawPath: String) throws(ArchiveError) {
    var path = rawPath
    if path.hasPrefix("./") { path.removeFirst(2) }
    if path.hasSuffix("/") { path.removeLast() }
    func refuse(_ why: String) -> ArchiveError {
      ArchiveError(
        .unsafeEntry,
        "the archive holds \(Identifier.quoted(rawPath)) (\(why)); nothing was restored")
    }
    if path.hasPrefix("/") { throw refuse("an absolute path") }
    let parts = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
    if parts.contains("..") { throw refuse("a path that climbs out with ..") }
    func json(_ name: String) -> String? {
      name.hasSuffix(".json") ? String(name.dropLast(5)) : nil
    }
    switch parts.count {
    case 1 where ["entries", "assets", "index", ".mirror", ""].contains(parts[0]): self = .directory
    case 1 where parts[0] == "manifest.json": self = .manifest
    case 1 where parts[0] == "deleted.json": self = .deletedList
    case 2 where ["index/items", "index/links", ".mirror/items", ".mirror/journal"].contains(path):
      self = .directory
    case 2 where parts[0] == "entries" && Identifier.isValid(parts[1]): self = .directory
    case 2 where parts[0] == "assets" && Identifier.isValid(parts[1]): self = .directory
    case 3 where path == ".mirror/items/entries" || path == ".mirror/items/assets":
      self = .directory
    case 3
    where parts[0] == "entries" && Identifier.isValid(parts[1]) && Identifier.isValid(parts[2]):
      self = .directory
    case 3 where parts[0] == "assets" && Identifier.isValid(parts[1]):
      guard let locale = json(parts[2]), Identifier.isValidLocaleCode(locale) else {
        throw refuse("not a mirror file")
      }
      self = .document(ItemKey(.asset, parts[1]), contentType: nil, locale: locale)
    case 3 where parts[0] == "index" && (parts[1] == "items" || parts[1] == "links"):
      guard let shard = json(parts[2]), shard.count == 3, Int(shard, radix: 16) != nil else {
        throw refuse("not a mirror file")
      }
      self = parts[1] == "items" ? .itemShard(shard) : .linkShard(shard)
    case 3 where parts[0] == ".mirror" && parts[1] == "journal":
      guard let name = json(parts[2]), !name.isEmpty, name.allSatisfy(\.isNumber) else {
        throw refuse("not a mirror file")
      }
      self = .journal(parts[2])
    case 4 where parts[0] == "entries":
      guard Identifier.isValid(parts[1]), Identifier.isValid(parts[2]), let locale = json(parts[3]),
        Identifier.isValidLocaleCode(locale)
      else { throw refuse("not a mirror file") }
      self = .document(ItemKey(.entry, parts[2]), contentType: parts[1], locale: locale)
    case 4
    where parts[0] == ".mirror" && parts[1] == "items"
      && (parts[2] == "entries" || parts[2] == "assets"):
      guard let id = json(parts[3]), Identifier.isValid(id) else {
        throw refuse("not a mirror file")
      }
      self = .rawItem(ItemKey(parts[2] == "entries" ? .entry : .asset, id))
    default:
      throw refuse("not a file of the mirror layout")
    }
  }
}
