/// Finds every entry and asset an item links to.
///
/// Links are `{"sys": {"type": "Link", "linkType": "Entry"|"Asset", "id": ...}}` objects found
/// anywhere in `fields`, in every locale: single link fields, arrays of links, and rich text,
/// where embedded blocks, inline embeds and hyperlinks carry them in `data.target`. Links to
/// other kinds (tags, spaces, environments) are not item links and are ignored; so is anything
/// in `sys` and `metadata`.
public enum LinkExtractor {
  /// The sorted, distinct targets of `item`'s links.
  public static func targets(of item: SyncedItem) -> [ItemKey] {
    var found = Set<ItemKey>()
    if let fields = item.raw["fields"] { collect(fields, into: &found) }
    return found.sorted()
  }

  private static func collect(_ value: JSONValue, into found: inout Set<ItemKey>) {
    switch value {
    case .array(let elements):
      for element in elements { collect(element, into: &found) }
    case .object(let object):
      if let key = link(in: object) {
        found.insert(key)
        return
      }
      for member in object.members { collect(member.value, into: &found) }
    default:
      return
    }
  }

  private static func link(in object: JSONObject) -> ItemKey? {
    guard let sys = object["sys"]?.objectValue, sys["type"]?.stringValue == "Link",
      let linkType = sys["linkType"]?.stringValue, let kind = ItemKind(rawValue: linkType),
      let id = sys["id"]?.stringValue, Identifier.isValid(id)
    else { return nil }
    return ItemKey(kind, id)
  }
}
