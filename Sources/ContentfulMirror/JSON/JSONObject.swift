/// A JSON object whose members are unique and sorted by key in Unicode code point order.
///
/// Sorting by the keys' UTF-8 bytes is the same as sorting by code points, and it is the order
/// the canonical writer emits, so keeping members sorted makes equality, lookup (binary search)
/// and output all cheap. Keys are compared by their bytes, not by Swift's canonical-equivalence
/// `String` equality: `"é"` precomposed and decomposed are two different keys, as in JSON.
public struct JSONObject: Sendable, Hashable {
  /// One key/value pair.
  public struct Member: Sendable, Hashable {
    public var key: String
    public var value: JSONValue

    public init(key: String, value: JSONValue) {
      self.key = key
      self.value = value
    }
  }

  /// The members, sorted by key code point, keys unique.
  public private(set) var members: [Member]

  /// An empty object.
  public init() { members = [] }

  /// Builds an object from members that may be in any order.
  ///
  /// - Throws: ``JSONError`` with code `.duplicateKey` when two members share a key.
  public init(members unsorted: [Member]) throws(JSONError) {
    var sorted = unsorted
    sorted.sort { Self.precedes($0.key, $1.key) }
    if sorted.count > 1 {
      for index in 1..<sorted.count
      where Self.bytesEqual(sorted[index - 1].key, sorted[index].key) {
        throw JSONError(.duplicateKey, "duplicate key \"\(sorted[index].key)\"")
      }
    }
    members = sorted
  }

  /// Builds an object from members already sorted by key code point, keys unique.
  init(sortedMembers: [Member]) {
    members = sortedMembers
  }

  /// Builds an object from a dictionary literal-like list of pairs with distinct keys.
  public init(_ pairs: KeyValuePairs<String, JSONValue>) {
    var object = JSONObject()
    for (key, value) in pairs { object[key] = value }
    self = object
  }

  /// The number of members.
  public var count: Int { members.count }

  /// Whether the object has no members.
  public var isEmpty: Bool { members.isEmpty }

  /// The keys in canonical order.
  public var keys: [String] { members.map(\.key) }

  /// Reads, replaces, inserts (`value` non-nil) or removes (`nil`) the member for `key`.
  public subscript(key: String) -> JSONValue? {
    get {
      let index = insertionIndex(of: key)
      guard index < members.count, Self.bytesEqual(members[index].key, key) else { return nil }
      return members[index].value
    }
    set {
      let index = insertionIndex(of: key)
      let exists = index < members.count && Self.bytesEqual(members[index].key, key)
      switch (newValue, exists) {
      case (let value?, true): members[index].value = value
      case (let value?, false): members.insert(Member(key: key, value: value), at: index)
      case (nil, true): members.remove(at: index)
      case (nil, false): break
      }
    }
  }

  private func insertionIndex(of key: String) -> Int {
    var low = 0
    var high = members.count
    while low < high {
      let mid = (low + high) / 2
      if Self.precedes(members[mid].key, key) { low = mid + 1 } else { high = mid }
    }
    return low
  }

  /// Code point order, which for UTF-8 is plain byte order.
  static func precedes(_ lhs: String, _ rhs: String) -> Bool {
    compare(lhs, rhs) < 0
  }

  static func bytesEqual(_ lhs: String, _ rhs: String) -> Bool {
    lhs.utf8.count == rhs.utf8.count && compare(lhs, rhs) == 0
  }

  /// memcmp-style comparison of the UTF-8 bytes (native strings are contiguous UTF-8).
  private static func compare(_ lhs: String, _ rhs: String) -> Int {
    let result = lhs.utf8.withContiguousStorageIfAvailable { left in
      rhs.utf8.withContiguousStorageIfAvailable { right -> Int in
        let common = min(left.count, right.count)
        for index in 0..<common where left[index] != right[index] {
          return left[index] < right[index] ? -1 : 1
        }
        return left.count - right.count
      }
    }
    if let result = result.flatMap({ $0 }) { return result }
    if lhs.utf8.elementsEqual(rhs.utf8) { return 0 }
    return lhs.utf8.lexicographicallyPrecedes(rhs.utf8) ? -1 : 1
  }
}
