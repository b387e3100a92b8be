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
    item.tape.withView { view in
      // An item links to a handful of targets: sorting them and dropping repeats is cheaper
      // than hashing each into a set.
      var found: [ItemKey] = []
      if let fields = view.member("fields", of: item.node) { collect(fields, view, into: &found) }
      found.sort()
      var distinct: [ItemKey] = []
      distinct.reserveCapacity(found.count)
      for key in found where distinct.last != key { distinct.append(key) }
      return distinct
    }
  }

  private static func collect(_ node: Int, _ view: JSONTape.View, into found: inout [ItemKey]) {
    switch view.kind(node) {
    case .array, .object:
      if let key = link(node, view) {
        found.append(key)
        return
      }
      // Every child: array elements, and an object's keys (strings, skipped) and values.
      var child = node + 1
      while child < view.next(node) {
        collect(child, view, into: &found)
        child = view.next(child)
      }
    default:
      return
    }
  }

  private static func link(_ node: Int, _ view: JSONTape.View) -> ItemKey? {
    guard let sys = view.object("sys", of: node),
      let type = view.member("type", of: sys), view.isString(type, "Link"),
      let linkType = view.member("linkType", of: sys).flatMap(view.string),
      let kind = ItemKind(rawValue: linkType),
      let id = view.member("id", of: sys).flatMap(view.string), Identifier.isValid(id)
    else { return nil }
    return ItemKey(kind, id)
  }
}
