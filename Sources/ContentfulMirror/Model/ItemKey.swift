/// Whether an item is an entry or an asset.
public enum ItemKind: String, Sendable, Hashable, CaseIterable, Comparable {
  case entry = "Entry"
  case asset = "Asset"

  public static func < (lhs: ItemKind, rhs: ItemKind) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// The identity of an item in the mirror: its kind and id.
///
/// An entry and an asset may share an id (seen in real spaces), so every index is keyed by both.
/// The textual form, `Entry:abc` or `Asset:abc`, is unambiguous because ids never contain `:`.
public struct ItemKey: Sendable, Hashable, Comparable, CustomStringConvertible {
  public var kind: ItemKind
  public var id: String

  public init(_ kind: ItemKind, _ id: String) {
    self.kind = kind
    self.id = id
  }

  /// Parses the textual form `Entry:<id>` / `Asset:<id>`.
  public init?(_ text: String) {
    guard let colon = text.firstIndex(of: ":"),
      let kind = ItemKind(rawValue: String(text[..<colon]))
    else { return nil }
    self.init(kind, String(text[text.index(after: colon)...]))
  }

  public var description: String { "\(kind.rawValue):\(id)" }

  /// The order of the textual forms (`Asset:…` before `Entry:…`, then ids by byte), without
  /// building them.
  public static func < (lhs: ItemKey, rhs: ItemKey) -> Bool {
    if lhs.kind != rhs.kind { return lhs.kind < rhs.kind }
    return JSONObject.precedes(lhs.id, rhs.id)
  }
}
