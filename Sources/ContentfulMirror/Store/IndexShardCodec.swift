/// The bytes of index shard files, to and from their rows, without JSON value trees.
///
/// A delta reads and rewrites about one item shard and a few link shards per changed item, and
/// a first sync writes every shard once; going through `JSONValue` (a tree of strings, arrays
/// and dictionaries per row) made that cost grow with the rows a shard holds. Shards are read
/// from a ``JSONTape`` and written with a ``ByteWriter``, in the same canonical form
/// (``CanonicalJSON``): sorted keys, two-space indentation, a trailing newline.
enum IndexShardCodec {
  // MARK: Writing

  /// The canonical JSON of an item shard: `{"Entry:id": {"contentType", "linksTo",
  /// "revision", "updatedAt"}, …}`, rows in key order.
  static func encode(items rows: [ItemKey: IndexStore.ItemRow]) -> [UInt8] {
    var output = ByteWriter(capacity: 64 + rows.count * 192)
    writeRows(rows, to: &output) { row, output in
      if let contentType = row.contentType {
        writeMember("contentType", first: true, to: &output)
        CanonicalJSON.writeString(contentType, to: &output)
      }
      writeMember("linksTo", first: row.contentType == nil, to: &output)
      writeKeys(row.linksTo, to: &output)
      if let revision = row.revision {
        writeMember("revision", first: false, to: &output)
        var digits = String(revision)
        digits.withUTF8 { output.write($0) }
      }
      if let updatedAt = row.updatedAt {
        writeMember("updatedAt", first: false, to: &output)
        CanonicalJSON.writeString(updatedAt, to: &output)
      }
    }
    return output.bytes
  }

  /// The canonical JSON of a link shard: `{"Entry:id": {"dangling": true, "linkedFrom": […]},
  /// …}`, rows in key order, `dangling` only when true, `linkedFrom` sorted.
  static func encode(links rows: [ItemKey: IndexStore.LinkRow]) -> [UInt8] {
    var output = ByteWriter(capacity: 64 + rows.count * 96)
    writeRows(rows, to: &output) { row, output in
      if row.dangling {
        writeMember("dangling", first: true, to: &output)
        output.write("true")
      }
      writeMember("linkedFrom", first: !row.dangling, to: &output)
      writeKeys(row.linkedFrom.sorted(), to: &output)
    }
    return output.bytes
  }

  /// `{`, each row as `"key": {members}` at depth 1, `}` and a newline.
  private static func writeRows<Row>(
    _ rows: [ItemKey: Row], to output: inout ByteWriter,
    members: (Row, inout ByteWriter) -> Void
  ) {
    guard !rows.isEmpty else { return output.write("{}\n") }
    output.write("{")
    for (index, (key, row)) in rows.sorted(by: { $0.key < $1.key }).enumerated() {
      if index > 0 { output.write(",") }
      CanonicalJSON.newline(1, &output)
      writeKey(key, to: &output)
      output.write(": {")
      members(row, &output)
      CanonicalJSON.newline(1, &output)
      output.write("}")
    }
    CanonicalJSON.newline(0, &output)
    output.write("}\n")
  }

  /// A member's key at depth 2, after a comma unless it is the first.
  private static func writeMember(_ key: StaticString, first: Bool, to output: inout ByteWriter) {
    if !first { output.write(",") }
    CanonicalJSON.newline(2, &output)
    output.write("\"")
    output.write(key)
    output.write("\": ")
  }

  /// `key` as the JSON string of its textual form (``ItemKey/description``, `"Entry:abc"`),
  /// without building that text: a first sync's index writes every key several times.
  private static func writeKey(_ key: ItemKey, to output: inout ByteWriter) {
    output.write(UInt8(ascii: "\""))
    var kind = key.kind.rawValue
    kind.withUTF8 { output.write($0) }
    output.write(UInt8(ascii: ":"))
    var id = key.id
    id.withUTF8 { CanonicalJSON.writeStringContent(utf8: $0, to: &output) }
    output.write(UInt8(ascii: "\""))
  }

  /// An array of item keys at depth 2.
  private static func writeKeys(_ keys: [ItemKey], to output: inout ByteWriter) {
    guard !keys.isEmpty else { return output.write("[]") }
    output.write("[")
    for (index, key) in keys.enumerated() {
      if index > 0 { output.write(",") }
      CanonicalJSON.newline(3, &output)
      writeKey(key, to: &output)
    }
    CanonicalJSON.newline(2, &output)
    output.write("]")
  }

  // MARK: Reading

  /// The rows of an item shard, or `nil` when `bytes` are not a shard's JSON.
  static func items(in bytes: [UInt8]) -> [ItemKey: IndexStore.ItemRow]? {
    rows(in: bytes) { view, row in
      var item = IndexStore.ItemRow(linksTo: [])
      if let node = view.member("contentType", of: row) {
        guard let text = view.string(node) else { return nil }
        item.contentType = text
      }
      if let node = view.member("revision", of: row) {
        guard view.kind(node) == .number,
          let revision = Int(String(decoding: view.slice(node), as: UTF8.self))
        else { return nil }
        item.revision = revision
      }
      if let node = view.member("updatedAt", of: row) {
        guard let text = view.string(node) else { return nil }
        item.updatedAt = text
      }
      if let node = view.member("linksTo", of: row) {
        guard let keys = self.keys(in: view, array: node) else { return nil }
        item.linksTo = keys
      }
      return item
    }
  }

  /// The rows of a link shard, or `nil` when `bytes` are not a shard's JSON.
  static func links(in bytes: [UInt8]) -> [ItemKey: IndexStore.LinkRow]? {
    rows(in: bytes) { view, row in
      var link = IndexStore.LinkRow(linkedFrom: [], dangling: false)
      if let node = view.member("dangling", of: row) {
        link.dangling = view.kind(node) == .true
      }
      if let node = view.member("linkedFrom", of: row) {
        guard let keys = self.keys(in: view, array: node) else { return nil }
        link.linkedFrom = Set(keys)
      }
      return link
    }
  }

  /// Each member of the top-level object, its key read as an ``ItemKey`` and its object value
  /// read by `row`; `nil` when anything is not as a shard has it.
  private static func rows<Row>(
    in bytes: [UInt8], row: (JSONTape.View, Int) -> Row?
  ) -> [ItemKey: Row]? {
    guard let tape = try? JSONTape(parsing: bytes) else { return nil }
    return tape.withView { view -> [ItemKey: Row]? in
      let root = JSONTape.root
      guard view.kind(root) == .object else { return nil }
      var rows: [ItemKey: Row] = [:]
      rows.reserveCapacity(Int(view.nodes[root].count))
      var key = root + 1
      let end = view.next(root)
      while key < end {
        let value = key + 1
        guard view.kind(value) == .object, let itemKey = itemKey(view, key),
          let parsed = row(view, value)
        else { return nil }
        rows[itemKey] = parsed
        key = view.next(value)
      }
      return rows
    }
  }

  /// String node `node` read as an item key with a valid id (a shard from a damaged or hostile
  /// file must not name paths outside the mirror).
  ///
  /// Read from the node's bytes: a valid key is plain ASCII, never escaped.
  private static func itemKey(_ view: JSONTape.View, _ node: Int) -> ItemKey? {
    guard view.kind(node) == .string, let key = ItemKey(utf8: view.slice(node)),
      Identifier.isValid(key.id)
    else { return nil }
    return key
  }

  /// The item keys in string array `array`.
  private static func keys(in view: JSONTape.View, array: Int) -> [ItemKey]? {
    guard view.kind(array) == .array else { return nil }
    var keys: [ItemKey] = []
    keys.reserveCapacity(Int(view.nodes[array].count))
    var element = array + 1
    let end = view.next(array)
    while element < end {
      guard let key = itemKey(view, element) else { return nil }
      keys.append(key)
      element = view.next(element)
    }
    return keys
  }
}
