// libFuzzer entry point over the JSON tape, the sync-page decoder, the document renderer and the index redo
// log reader.
// Built by scripts/fuzz.sh together with the ContentfulMirror sources; not part of the package.

let fuzzModel = SpaceModel(
  locales: [
    SpaceLocale(code: "en-US", isDefault: true), SpaceLocale(code: "de-DE", fallbackCode: "en-US"),
    SpaceLocale(code: "de-AT", fallbackCode: "de-DE"), SpaceLocale(code: "fr-FR"),
  ],
  contentTypes: [
    ContentTypeSummary(
      id: "post",
      fields: [
        .init(id: "title", type: "Symbol", localized: true), .init(id: "slug", type: "Symbol", localized: false),
        .init(id: "body", type: "RichText", localized: true),
      ])
  ])

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  // The index redo log is read back from the mirror after a crash: it must refuse, not trap.
  if let changes = IndexRedoLog.parse(bytes) {
    precondition(changes.allSatisfy { $0.relativePath.hasPrefix("index/") })
  }
  // Canonical output written from a tape must equal the output written from the value tree.
  if let tape = try? JSONTape(parsing: bytes), let value = try? JSONReader().read(bytes) {
    var fromTape: [UInt8] = []
    tape.withView { CanonicalJSON.write($0, JSONTape.root, indent: 0, to: &fromTape) }
    fromTape.append(0x0A)
    precondition(fromTape == CanonicalJSON.encode(value), "tape and value tree encode differently")
  }
  guard let page = try? SyncPage(decoding: bytes) else { return 0 }
  let renderer = DocumentRenderer(model: fuzzModel)
  let locales = fuzzModel.locales.map(\.code)
  for case .upsert(let item) in page.items {
    let fast = renderer.encodedDocuments(for: item, locales: locales)
    for (locale, document) in zip(locales, fast) {
      // The fast encoder must agree with the reference rendering, and its output must read back.
      let reference = CanonicalJSON.encode(renderer.document(for: item, locale: locale))
      precondition(document == reference, "encodedDocuments differs from the reference rendering")
      precondition((try? JSONReader().read(document)) != nil, "a rendered document does not parse")
    }
    _ = LinkExtractor.targets(of: item)
    _ = item.snapshotBytes
  }
  return 0
}
