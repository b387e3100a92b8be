import Testing

@testable import ContentfulMirror

@Suite struct IdentifierTests {
  @Test(arguments: [
    "a", "5KsDBWseXY6QegucYAoacS", "my-post_2.v1", String(repeating: "x", count: 64), "...",
  ])
  func validIdsAreAccepted(_ id: String) {
    #expect(Identifier.isValid(id))
  }

  @Test(arguments: [
    "", ".", "..", "a/b", "../etc", "/etc", "a\u{0}b", String(repeating: "x", count: 65), "ünï",
    "a b",
    "a:b", "a\\b", "CON:",
  ])
  func invalidIdsAreRejected(_ id: String) {
    #expect(!Identifier.isValid(id))
  }

  @Test(arguments: ["en-US", "de", "zh-Hant-TW", "sr-Latn"])
  func localeCodesAreAccepted(_ code: String) {
    #expect(Identifier.isValidLocaleCode(code))
  }

  @Test(arguments: ["-en", ".hidden", "en/US", "", "..", "en US"])
  func badLocaleCodesAreRejected(_ code: String) {
    #expect(!Identifier.isValidLocaleCode(code))
  }

  @Test func validationErrorsNameTheItemAndEscapeTheValue() {
    #expect {
      try Identifier.validate("../\u{0}x", as: .entryID, in: "a sync item")
    } throws: { error in
      guard let error = error as? SyncError else { return false }
      return error.code == .invalidIdentifier && error.message.contains("a sync item")
        && error.message.contains("../") && !error.message.contains("\u{0}")
    }
  }
}
