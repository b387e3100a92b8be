extension DocumentRenderer {
  /// The canonical bytes of `item`'s document in each of `locales`, in that order.
  ///
  /// Byte for byte the same as `CanonicalJSON.encode(document(for:locale:))`, written straight
  /// from the item's tape: no value tree is built, and strings, numbers and literals are copied
  /// from the bytes the sync API sent. Serializing documents is most of the CPU a sync spends.
  public func encodedDocuments(for item: SyncedItem, locales: [String]) -> [[UInt8]] {
    encodedDocuments(for: item, locales: locales, chains: locales.map(chainBytes))
  }

  /// ``encodedDocuments(for:locales:)`` with each locale's fallback chain (``chainBytes(for:)``)
  /// looked up by the caller, once for all the items of a page.
  func encodedDocuments(for item: SyncedItem, locales: [String], chains: [[[UInt8]]])
    -> [[UInt8]]
  {
    item.tape.withView { view in
      let root = item.node
      let fields = view.object("fields", of: root)
      let sys = view.object("sys", of: root)
      let localized = fields.map { localizedFields(of: $0, in: view, item: item) } ?? []
      let members = Self.topLevelMembers(of: root, in: view)
      var output = ByteWriter(capacity: view.slice(root).count * 2 + 256)
      var values = RenderedValues(fields: localized.count, locales: locales.count)
      // `sys` differs between the documents only in its locale: rendered once, around it.
      var sysBytes = ByteWriter(capacity: view.slice(sys ?? root).count + 64)
      let localeOffset = appendSys(sys, view, to: &sysBytes)
      return zip(locales, chains).map { locale, codes in
        output.removeAll()
        output.write(UInt8(ascii: "{"))
        for (position, member) in members.enumerated() {
          if position > 0 { output.write(UInt8(ascii: ",")) }
          switch member {
          case .fields:
            CanonicalJSON.newline(1, &output)
            output.write(#""fields": "#)
            appendFields(
              fields, localized: localized, codes: codes, view, values: &values,
              to: &output)
          case .sys:
            CanonicalJSON.newline(1, &output)
            output.write(#""sys": "#)
            output.write(0..<localeOffset, of: sysBytes)
            CanonicalJSON.writeString(locale, to: &output)
            output.write(localeOffset..<sysBytes.count, of: sysBytes)
          case .other(let key):
            CanonicalJSON.writeMember(view, key: key, indent: 1, to: &output)
          }
        }
        CanonicalJSON.newline(0, &output)
        output.write("}\n")
        return output.bytes
      }
    }
  }

  /// The field values already rendered for an item's documents, each once: a value that two
  /// locales share (a non-localized field, or a fallback) is copied, not rendered again. In the
  /// benchmark's space two thirds of the field bytes of an item's documents are such copies.
  private struct RenderedValues: ~Copyable {
    /// The rendered values, one after another.
    var bytes = ByteWriter()
    /// For each field, up to one slot per locale: a rendered value's node and its range in
    /// `bytes`.
    private var slots: [(node: Int, range: Range<Int>)?]
    private let slotsPerField: Int

    init(fields: Int, locales: Int) {
      slotsPerField = max(locales, 1)
      slots = Array(repeating: nil, count: fields * slotsPerField)
    }

    /// Appends field `field`'s value at `node` (at indentation 2) to `output`.
    mutating func write(
      field: Int, node: Int, _ view: JSONTape.View, to output: inout ByteWriter
    ) {
      let first = field * slotsPerField
      var slot = first
      while slot < first + slotsPerField, let rendered = slots[slot] {
        if rendered.node == node { return output.write(rendered.range, of: bytes) }
        slot += 1
      }
      let start = bytes.count
      CanonicalJSON.write(view, node, indent: 2, to: &bytes)
      let range = start..<bytes.count
      if slot < first + slotsPerField { slots[slot] = (node, range) }
      output.write(range, of: bytes)
    }
  }

  /// A member of the document's top level.
  private enum TopLevel {
    case fields, sys
    /// Any other member of the item (such as `metadata`), by its key node.
    case other(key: Int)
  }

  /// The document's top-level members in key order: the item's own, with `fields` and `sys`
  /// always present.
  private static func topLevelMembers(of root: Int, in view: JSONTape.View) -> [TopLevel] {
    var members: [TopLevel] = []
    var fieldsDone = false
    var sysDone = false
    for key in view.sortedKeys(of: root).lazy.map(Int.init) {
      if !fieldsDone && !view.precedes(key, "fields") {
        members.append(.fields)
        fieldsDone = true
      }
      if !sysDone && !view.precedes(key, "sys") {
        members.append(.sys)
        sysDone = true
      }
      if !view.isString(key, "fields") && !view.isString(key, "sys") {
        members.append(.other(key: key))
      }
    }
    if !fieldsDone { members.append(.fields) }
    if !sysDone { members.append(.sys) }
    return members
  }

  /// For each member of `fields` in key order, whether it takes per-locale values.
  private func localizedFields(of fields: Int, in view: JSONTape.View, item: SyncedItem) -> [Bool] {
    let declared = item.contentTypeID.flatMap { localizedFieldIDs[$0] } ?? []
    return view.sortedKeys(of: fields).map { key in
      item.key.kind == .asset
        || declared.contains { id in id.withUnsafeBufferPointer { view.keyEquals(Int(key), $0) } }
    }
  }

  /// `"fields"`' value: each field's value in the locale (along `codes`, its fallback chain),
  /// or the default locale's for a non-localized field; fields without one are left out.
  private func appendFields(
    _ fields: Int?, localized: [Bool], codes: [[UInt8]], _ view: JSONTape.View,
    values: inout RenderedValues, to output: inout ByteWriter
  ) {
    var first = true
    for (index, key) in (fields.map(view.sortedKeys) ?? UnsafeBufferPointer(start: nil, count: 0))
      .enumerated()
    {
      let perLocale = Int(key) + 1
      guard view.kind(perLocale) == .object else { continue }
      var source: Int?
      if localized[index] {
        for code in codes {
          source = code.withUnsafeBufferPointer { view.member($0, of: perLocale) }
          if source != nil { break }
        }
      } else {
        source = defaultLocaleBytes.withUnsafeBufferPointer { view.member($0, of: perLocale) }
      }
      guard let source else { continue }
      output.write(first ? UInt8(ascii: "{") : UInt8(ascii: ","))
      first = false
      CanonicalJSON.newline(2, &output)
      CanonicalJSON.writeString(view, Int(key), to: &output)
      output.write(": ")
      values.write(field: index, node: source, view, to: &output)
    }
    if first {
      output.write("{}")
    } else {
      CanonicalJSON.newline(1, &output)
      output.write(UInt8(ascii: "}"))
    }
  }

  /// `"sys"`' value: the item's `sys` with a `locale` member (replacing one the item may carry),
  /// written without the locale's value.
  ///
  /// - Returns: The offset in `output` where the locale's value (a JSON string) belongs.
  private func appendSys(_ sys: Int?, _ view: JSONTape.View, to output: inout ByteWriter) -> Int {
    output.write(UInt8(ascii: "{"))
    var localeOffset: Int?
    var first = true
    func writeLocaleKey() -> Int {
      if !first { output.write(UInt8(ascii: ",")) }
      first = false
      CanonicalJSON.newline(2, &output)
      output.write(#""locale": "#)
      return output.count
    }
    for key in (sys.map(view.sortedKeys) ?? UnsafeBufferPointer(start: nil, count: 0))
      .lazy.map(Int.init)
    {
      if view.isString(key, "locale") { continue }
      if localeOffset == nil && !view.precedes(key, "locale") { localeOffset = writeLocaleKey() }
      if !first { output.write(UInt8(ascii: ",")) }
      first = false
      CanonicalJSON.writeMember(view, key: key, indent: 2, to: &output)
    }
    let offset = localeOffset ?? writeLocaleKey()
    CanonicalJSON.newline(1, &output)
    output.write(UInt8(ascii: "}"))
    return offset
  }
}
