extension DocumentRenderer {
  /// The canonical bytes of `item`'s document in each of `locales`, in that order.
  ///
  /// Byte for byte the same as `CanonicalJSON.encode(document(for:locale:))`, but each distinct
  /// value is encoded once per item instead of once per locale: a non-localized field, a value
  /// reached through a fallback chain, `metadata` and most of `sys` are shared by several locale
  /// documents, and serializing them is most of the CPU a sync spends.
  public func encodedDocuments(for item: SyncedItem, locales: [String]) -> [[UInt8]] {
    let contentType = item.contentTypeID.flatMap { model.contentTypes[$0] }
    let fieldMembers = item.raw["fields"]?.objectValue?.members ?? []
    // Encoded field values at document depth 2, keyed by field index and source locale.
    var encodedValues: [Int: [String: [UInt8]]] = [:]
    // Encoded top-level members other than fields and sys (e.g. metadata), shared by all locales.
    var sharedMembers: [String: [UInt8]] = [:]
    var documents: [[UInt8]] = []
    documents.reserveCapacity(locales.count)
    for locale in locales {
      let chain = chain(for: locale)
      var output: [UInt8] = []
      output.reserveCapacity(4096)
      var sys = item.raw["sys"]?.objectValue ?? JSONObject()
      sys["locale"] = .string(locale)
      var topLevel = item.raw
      topLevel["sys"] = .object(sys)
      topLevel["fields"] = .object(JSONObject())
      output.append(UInt8(ascii: "{"))
      for (position, member) in topLevel.members.enumerated() {
        if position > 0 { output.append(UInt8(ascii: ",")) }
        CanonicalJSON.newline(1, &output)
        CanonicalJSON.writeString(member.key, to: &output)
        output.append(contentsOf: [UInt8(ascii: ":"), UInt8(ascii: " ")])
        switch member.key {
        case "fields":
          var first = true
          for (index, field) in fieldMembers.enumerated() {
            guard let perLocale = field.value.objectValue else { continue }
            let localized =
              item.key.kind == .asset || (contentType?.isLocalized(field.key) ?? false)
            let source =
              localized
              ? chain.codes.first { perLocale[$0] != nil }
              : (perLocale[defaultLocale] != nil ? defaultLocale : nil)
            guard let source, let value = perLocale[source] else { continue }
            output.append(contentsOf: first ? [UInt8(ascii: "{")] : [UInt8(ascii: ",")])
            first = false
            CanonicalJSON.newline(2, &output)
            CanonicalJSON.writeString(field.key, to: &output)
            output.append(contentsOf: [UInt8(ascii: ":"), UInt8(ascii: " ")])
            if let cached = encodedValues[index]?[source] {
              output.append(contentsOf: cached)
            } else {
              var encoded: [UInt8] = []
              CanonicalJSON.write(value, indent: 2, to: &encoded)
              encodedValues[index, default: [:]][source] = encoded
              output.append(contentsOf: encoded)
            }
          }
          if first {
            output.append(contentsOf: [UInt8(ascii: "{"), UInt8(ascii: "}")])
          } else {
            CanonicalJSON.newline(1, &output)
            output.append(UInt8(ascii: "}"))
          }
        case "sys":
          CanonicalJSON.write(member.value, indent: 1, to: &output)
        default:
          if let cached = sharedMembers[member.key] {
            output.append(contentsOf: cached)
          } else {
            var encoded: [UInt8] = []
            CanonicalJSON.write(member.value, indent: 1, to: &encoded)
            sharedMembers[member.key] = encoded
            output.append(contentsOf: encoded)
          }
        }
      }
      CanonicalJSON.newline(0, &output)
      output.append(contentsOf: [UInt8(ascii: "}"), 0x0A])
      documents.append(output)
    }
    return documents
  }
}
