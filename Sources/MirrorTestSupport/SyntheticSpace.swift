public import ContentfulMirror

/// A deterministic synthetic space: N entries (authors, categories, posts with rich text, links,
/// arrays and a few explicit nulls), M assets, L locales with a fallback chain, served in sync
/// pages of 100 items. The same seed gives the same bytes.
public struct SyntheticSpace: Sendable {
  public static let spaceID = "benchspace"
  public let entries: Int
  public let assets: Int
  public let localeCodes: [String]
  private var random: SplitMix64

  /// A space of `entries` entries and `assets` assets in `locales` locales (1–8), from `seed`.
  public init(entries: Int, assets: Int, locales: Int, seed: UInt64) {
    self.entries = entries
    self.assets = assets
    self.localeCodes = Array(
      ["en-US", "de-DE", "de-AT", "fr-FR", "it-IT", "es-ES", "nl-NL", "pt-BR"].prefix(
        max(1, min(locales, 8))))
    self.random = SplitMix64(seed: seed)
  }

  /// The `/locales` response.
  public var localesJSON: [UInt8] {
    let items: [JSONValue] = localeCodes.enumerated().map { index, code in
      let fallback: JSONValue =
        switch index {
        case 0: .null
        case 2: .string("de-DE")
        case 3: .null
        default: .string("en-US")
        }
      return .object(
        JSONObject(["code": .string(code), "default": .bool(index == 0), "fallbackCode": fallback]))
    }
    return CanonicalJSON.encodeCompact(
      .object(JSONObject(["items": .array(items), "total": .number(String(items.count))])))
  }

  /// The `/content_types` response.
  public var contentTypesJSON: [UInt8] {
    func field(
      _ id: String, _ type: String, _ localized: Bool, link: String? = nil, items: String? = nil
    ) -> JSONValue {
      var object = JSONObject([
        "id": .string(id), "type": .string(type), "localized": .bool(localized),
      ])
      if let link { object["linkType"] = .string(link) }
      if let items {
        var itemObject = JSONObject(["type": .string(items)])
        if items == "Link" { itemObject["linkType"] = "Entry" }
        object["items"] = .object(itemObject)
      }
      return .object(object)
    }
    let types: [JSONValue] = [
      .object(
        JSONObject([
          "sys": .object(JSONObject(["id": "author"])), "name": "Author", "displayField": "name",
          "fields": .array([
            field("name", "Symbol", false), field("bio", "Text", true),
            field("avatar", "Link", false, link: "Asset"),
          ]),
        ])),
      .object(
        JSONObject([
          "sys": .object(JSONObject(["id": "category"])), "name": "Category",
          "displayField": "title",
          "fields": .array([field("title", "Symbol", true), field("slug", "Symbol", false)]),
        ])),
      .object(
        JSONObject([
          "sys": .object(JSONObject(["id": "post"])), "name": "Post", "displayField": "title",
          "fields": .array([
            field("title", "Symbol", true), field("slug", "Symbol", false),
            field("body", "RichText", true),
            field("author", "Link", false, link: "Entry"),
            field("categories", "Array", false, items: "Link"),
            field("hero", "Link", true, link: "Asset"),
            field("tags", "Array", true, items: "Symbol"),
            field("rating", "Number", false), field("summary", "Text", true),
          ]),
        ])),
    ]
    return CanonicalJSON.encodeCompact(
      .object(JSONObject(["items": .array(types), "total": .number("3")])))
  }

  /// Every item at `version` 1, in sync order.
  public mutating func items() -> [JSONValue] {
    var all: [JSONValue] = []
    for index in 0..<assets { all.append(asset(index, revision: 1)) }
    for index in 0..<entries { all.append(entry(index, revision: 1)) }
    return all
  }

  /// `count` entries changed at revision 2 (titles and a rating), for a delta.
  public mutating func changedEntries(_ count: Int) -> [JSONValue] {
    (0..<min(count, entries)).map { entry(($0 * 7919) % entries, revision: 2) }
  }

  /// Deletions of the last `count` entries (the ones ``changedEntries(_:)`` changes least).
  public func deletedEntries(_ count: Int) -> [JSONValue] {
    (max(entries - count, 0)..<entries).map { index in
      .object(
        JSONObject([
          "sys": .object(
            JSONObject([
              "id": .string("entry\(index)"), "type": "DeletedEntry",
              "deletedAt": "2025-04-01T00:00:00.000Z",
            ]))
        ]))
    }
  }

  private func sys(_ id: String, type: String, revision: Int, contentType: String? = nil)
    -> JSONValue
  {
    var object = JSONObject([
      "id": .string(id), "type": .string(type), "revision": .number(String(revision)),
      "createdAt": "2025-01-01T00:00:00.000Z",
      "updatedAt": .string("2025-0\(1 + revision)-01T00:00:00.000Z"),
      "space": .object(
        JSONObject([
          "sys": .object(
            JSONObject(["type": "Link", "linkType": "Space", "id": .string(Self.spaceID)]))
        ])),
      "environment": .object(
        JSONObject([
          "sys": .object(JSONObject(["type": "Link", "linkType": "Environment", "id": "master"]))
        ])),
    ])
    if let contentType {
      object["contentType"] = .object(
        JSONObject([
          "sys": .object(
            JSONObject(["type": "Link", "linkType": "ContentType", "id": .string(contentType)]))
        ]))
    }
    return .object(object)
  }

  private func link(_ type: String, _ id: String) -> JSONValue {
    .object(
      JSONObject([
        "sys": .object(JSONObject(["type": "Link", "linkType": .string(type), "id": .string(id)]))
      ]))
  }

  private mutating func words(_ count: Int) -> String {
    let pool = [
      "alpine", "river", "market", "lantern", "harbor", "meadow", "copper", "violet", "summit",
      "ember", "glacier", "orchard",
    ]
    return (0..<count).map { _ in pool[Int(random.next() % UInt64(pool.count))] }.joined(
      separator: " ")
  }

  private mutating func perLocale(
    _ make: (inout SplitMix64, String) -> JSONValue, share: Double = 0.6
  ) -> JSONValue {
    var object = JSONObject()
    for (index, code) in localeCodes.enumerated()
    where index == 0 || Double(random.next() % 1000) / 1000 < share {
      object[code] = make(&random, code)
    }
    return .object(object)
  }

  private mutating func asset(_ index: Int, revision: Int) -> JSONValue {
    let id = "asset\(index)"
    let title = words(3)
    return .object(
      JSONObject([
        "metadata": .object(JSONObject(["tags": .array([])])),
        "sys": sys(id, type: "Asset", revision: revision),
        "fields": .object(
          JSONObject([
            "title": perLocale({ _, code in .string("\(title) \(code)") }),
            "file": .object(
              JSONObject([
                "en-US": .object(
                  JSONObject([
                    "url": .string("//images.example.net/\(Self.spaceID)/\(id)/photo.jpg"),
                    "fileName": "photo.jpg",
                    "contentType": "image/jpeg",
                    "details": .object(
                      JSONObject([
                        "size": .number(String(10_000 + index)),
                        "image": .object(JSONObject(["width": 1200, "height": 800])),
                      ])),
                  ]))
              ])),
          ])),
      ]))
  }

  private mutating func entry(_ index: Int, revision: Int) -> JSONValue {
    let id = "entry\(index)"
    let authors = max(1, entries / 50)
    let categories = max(1, entries / 100)
    if index < authors {
      return .object(
        JSONObject([
          "metadata": .object(JSONObject(["tags": .array([])])),
          "sys": sys(id, type: "Entry", revision: revision, contentType: "author"),
          "fields": .object(
            JSONObject([
              "name": .object(JSONObject(["en-US": .string(words(2))])),
              "bio": perLocale({ random, _ in random.next() % 10 == 0 ? .null : .string("bio") }),
              "avatar": .object(
                JSONObject(["en-US": link("Asset", "asset\(index % max(assets, 1))")])),
            ])),
        ]))
    }
    if index < authors + categories {
      return .object(
        JSONObject([
          "metadata": .object(JSONObject(["tags": .array([])])),
          "sys": sys(id, type: "Entry", revision: revision, contentType: "category"),
          "fields": .object(
            JSONObject([
              "title": perLocale({ _, code in .string("Category \(index) \(code)") }),
              "slug": .object(JSONObject(["en-US": .string("category-\(index)")])),
            ])),
        ]))
    }
    let title = words(5) + (revision > 1 ? " (revised)" : "")
    let heroLink = link("Asset", "asset\((index * 13) % max(assets, 1))")
    let paragraphs: [JSONValue] = (0..<4).map { paragraph in
      var content: [JSONValue] = [
        .object(
          JSONObject([
            "nodeType": "text", "value": .string(words(24)), "marks": .array([]),
            "data": .object(JSONObject()),
          ]))
      ]
      if paragraph == 1 {
        content.append(
          .object(
            JSONObject([
              "nodeType": "entry-hyperlink",
              "data": .object(
                JSONObject(["target": link("Entry", "entry\((index * 31) % entries)")])),
              "content": .array([
                .object(
                  JSONObject([
                    "nodeType": "text", "value": "see also", "marks": .array([]),
                    "data": .object(JSONObject()),
                  ]))
              ]),
            ])))
      }
      return .object(
        JSONObject([
          "nodeType": "paragraph", "data": .object(JSONObject()), "content": .array(content),
        ]))
    }
    let body = JSONValue.object(
      JSONObject([
        "nodeType": "document", "data": .object(JSONObject()),
        "content": .array(
          paragraphs + [
            .object(
              JSONObject([
                "nodeType": "embedded-asset-block",
                "data": .object(
                  JSONObject(["target": link("Asset", "asset\(index % max(assets, 1))")])),
                "content": .array([]),
              ]))
          ]),
      ]))
    return .object(
      JSONObject([
        "metadata": .object(JSONObject(["tags": .array([])])),
        "sys": sys(id, type: "Entry", revision: revision, contentType: "post"),
        "fields": .object(
          JSONObject([
            "title": perLocale({ _, code in .string("\(title) [\(code)]") }),
            "slug": .object(JSONObject(["en-US": .string("post-\(index)")])),
            "body": perLocale({ _, _ in body }, share: 0.4),
            "author": .object(JSONObject(["en-US": link("Entry", "entry\(index % authors)")])),
            "categories": .object(
              JSONObject([
                "en-US": .array([
                  link("Entry", "entry\(authors + index % categories)"),
                  link("Entry", "entry\(authors + (index / 3) % categories)"),
                ])
              ])),
            "hero": perLocale({ _, _ in heroLink }, share: 0.3),
            "tags": perLocale({ random, _ in
              .array([.string("tag\(random.next() % 50)"), .string("tag\(random.next() % 50)")])
            }),
            "rating": .object(
              JSONObject(["en-US": .number(index % 17 == 0 ? "4.50" : String(index % 5))])),
            "summary": perLocale(Self.summary),
          ])),
      ]))
  }
}

extension SyntheticSpace {
  /// A summary, explicitly null one time in eight.
  fileprivate static func summary(_ random: inout SplitMix64, _ locale: String) -> JSONValue {
    random.next() % 8 == 0 ? .null : .string("summary \(locale)")
  }
}

/// A small, fast, seedable generator (Steele, Lea, Flood: SplitMix64).
public struct SplitMix64: RandomNumberGenerator, Sendable {
  private var state: UInt64
  public init(seed: UInt64) { state = seed }
  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
