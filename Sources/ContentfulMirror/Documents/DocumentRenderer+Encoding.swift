extension DocumentRenderer {
  /// The canonical bytes of `item`'s document in each of `locales`, in that order.
  ///
  /// Byte for byte the same as `CanonicalJSON.encode(document(for:locale:))`, but everything
  /// the locale documents share is encoded once per item instead of once per locale: `sys`
  /// (all but `sys.locale`), `metadata`, non-localized fields and values reached through a
  /// fallback chain. Serializing documents is most of the CPU a sync spends.
  public func encodedDocuments(for item: SyncedItem, locales: [String]) -> [[UInt8]] {
    let contentType = item.contentTypeID.flatMap { model.contentTypes[$0] }
    let fieldMembers = item.raw["fields"]?.objectValue?.members ?? []
    // Looked up once per item, not once per field and locale.
    let localizedFields = fieldMembers.map {
      Self.isLocalized($0.key, of: item, contentType: contentType)
    }

    // sys members other than `locale`, each encoded once as `"key": value` at depth 2; the
    // locale goes in at its sorted position.
    let sysMembers = (item.raw["sys"]?.objectValue?.members ?? []).filter { $0.key != "locale" }
    let sysParts: [[UInt8]] = sysMembers.map { member in
      var part: [UInt8] = []
      CanonicalJSON.newline(2, &part)
      CanonicalJSON.writeString(member.key, to: &part)
      part.append(contentsOf: [UInt8(ascii: ":"), UInt8(ascii: " ")])
      CanonicalJSON.write(member.value, indent: 2, to: &part)
      return part
    }
    let localePosition =
      sysMembers.firstIndex { !JSONObject.precedes($0.key, "locale") } ?? sysMembers.count

    // Top-level keys in canonical order (fields and sys are always present); other members,
    // such as metadata, encoded once.
    var topLevel = item.raw
    topLevel["fields"] = .object(JSONObject())
    topLevel["sys"] = .object(JSONObject())
    var shared: [String: [UInt8]] = [:]
    for member in topLevel.members where member.key != "fields" && member.key != "sys" {
      var encoded: [UInt8] = []
      CanonicalJSON.write(member.value, indent: 1, to: &encoded)
      shared[member.key] = encoded
    }

    // Field values at depth 2, keyed by field index and the locale the value came from.
    var encodedValues: [Int: [String: [UInt8]]] = [:]
    var documents: [[UInt8]] = []
    documents.reserveCapacity(locales.count)
    for locale in locales {
      let chain = chain(for: locale)
      var output: [UInt8] = []
      output.reserveCapacity(4096)
      output.append(UInt8(ascii: "{"))
      for (position, key) in topLevel.keys.enumerated() {
        if position > 0 { output.append(UInt8(ascii: ",")) }
        CanonicalJSON.newline(1, &output)
        CanonicalJSON.writeString(key, to: &output)
        output.append(contentsOf: [UInt8(ascii: ":"), UInt8(ascii: " ")])
        switch key {
        case "fields":
          var first = true
          for (index, field) in fieldMembers.enumerated() {
            guard let perLocale = field.value.objectValue else { continue }
            let source =
              localizedFields[index]
              ? chain.codes.first { perLocale[$0] != nil }
              : (perLocale[defaultLocale] != nil ? defaultLocale : nil)
            guard let source, let value = perLocale[source] else { continue }
            output.append(first ? UInt8(ascii: "{") : UInt8(ascii: ","))
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
          output.append(UInt8(ascii: "{"))
          for (index, part) in sysParts.enumerated() {
            if index == localePosition {
              appendLocale(locale, separated: index > 0, to: &output)
            }
            if index > 0 || localePosition == 0 { output.append(UInt8(ascii: ",")) }
            output.append(contentsOf: part)
          }
          if localePosition == sysParts.count {
            appendLocale(locale, separated: !sysParts.isEmpty, to: &output)
          }
          CanonicalJSON.newline(1, &output)
          output.append(UInt8(ascii: "}"))
        default:
          output.append(contentsOf: shared[key] ?? [])
        }
      }
      CanonicalJSON.newline(0, &output)
      output.append(contentsOf: [UInt8(ascii: "}"), 0x0A])
      documents.append(output)
    }
    return documents
  }

  private func appendLocale(_ locale: String, separated: Bool, to output: inout [UInt8]) {
    if separated { output.append(UInt8(ascii: ",")) }
    CanonicalJSON.newline(2, &output)
    CanonicalJSON.writeString("locale", to: &output)
    output.append(contentsOf: [UInt8(ascii: ":"), UInt8(ascii: " ")])
    CanonicalJSON.writeString(locale, to: &output)
  }
}
