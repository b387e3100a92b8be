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
    var text = text
    guard let key = text.withUTF8(ItemKey.init(utf8:)) else { return nil }
    self = key
  }

  /// Parses the UTF-8 bytes of the textual form, without a `String` to split (index shards
  /// read thousands of keys per delta).
  init?(utf8 text: UnsafeBufferPointer<UInt8>) {
    for (kind, name) in Self.kindNames {
      guard text.count > name.count, text.starts(with: name),
        text[name.count] == UInt8(ascii: ":")
      else { continue }
      self.init(kind, String(decoding: text[(name.count + 1)...], as: UTF8.self))
      return
    }
    return nil
  }

  /// Each kind with the UTF-8 bytes of its name, as the textual form spells it.
  private static let kindNames = ItemKind.allCases.map { ($0, Array($0.rawValue.utf8)) }

  public var description: String { "\(kind.rawValue):\(id)" }

  /// The order of the textual forms (`Asset:…` before `Entry:…`, then ids by byte), without
  /// building them.
  public static func < (lhs: ItemKey, rhs: ItemKey) -> Bool {
    if lhs.kind != rhs.kind { return lhs.kind < rhs.kind }
    return JSONObject.precedes(lhs.id, rhs.id)
  }
}
