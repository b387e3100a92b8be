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

  /// Walks `node`'s subtree in tape order (which is pre-order: a container's children follow
  /// it), so no recursion is needed: each link found is recorded and its subtree skipped, and
  /// every other node is stepped into or over by moving to the next node.
  private static func collect(_ node: Int, _ view: JSONTape.View, into found: inout [ItemKey]) {
    var current = node
    let end = view.next(node)
    while current < end {
      if view.kind(current) == .object, let key = link(current, view) {
        found.append(key)
        current = view.next(current)
      } else {
        current += 1
      }
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
