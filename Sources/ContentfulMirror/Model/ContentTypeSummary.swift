/// What the mirror keeps of a content type: enough to render and to describe the space.
public struct ContentTypeSummary: Sendable, Hashable {
  /// One field's definition.
  public struct Field: Sendable, Hashable {
    public var id: String
    /// The field type, e.g. `Symbol`, `Link`, `Array`, `RichText`.
    public var type: String
    /// For `Link` fields (and arrays of links), `Entry` or `Asset`.
    public var linkType: String?
    /// For `Array` fields, the type of the items.
    public var itemsType: String?
    /// Whether the field holds a value per locale.
    public var localized: Bool

    public init(
      id: String, type: String, localized: Bool, linkType: String? = nil, itemsType: String? = nil
    ) {
      self.id = id
      self.type = type
      self.localized = localized
      self.linkType = linkType
      self.itemsType = itemsType
    }
  }

  public var id: String
  public var name: String?
  public var displayField: String?
  public var fields: [Field]

  public init(id: String, name: String? = nil, displayField: String? = nil, fields: [Field]) {
    self.id = id
    self.name = name
    self.displayField = displayField
    self.fields = fields
  }

  /// Whether field `id` is localized. Fields the content type does not declare are treated as
  /// not localized, as the CDA renders them.
  public func isLocalized(_ fieldID: String) -> Bool {
    fields.first { $0.id == fieldID }?.localized ?? false
  }
}
