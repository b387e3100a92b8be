import MirrorTestSupport
import Testing

@testable import ContentfulMirror

@Suite struct JSONReaderTests {
  let reader = JSONReader()

  @Test(arguments: ["0", "-0", "1.50", "1e400", "-1E-7", "12345678901234567890123", "0.1e+2"])
  func numbersKeepTheirExactLexeme(_ lexeme: String) throws {
    #expect(try reader.read("[\(lexeme)]") == .array([.number(lexeme)]))
  }

  @Test(arguments: ["01", "-", "1.", ".5", "1e", "+1", "0x10", "NaN", "Infinity", "1.e5", "--1"])
  func malformedNumbersAreRejected(_ text: String) {
    #expect(throws: JSONError.self) { try reader.read("[\(text)]") }
  }

  @Test func escapesDecodeToTheirCharacters() throws {
    let value = try reader.read(#""\" \\ \/ \b \f \n \r \t \u00e9 \u0000""#)
    #expect(value == .string("\" \\ / \u{8} \u{C} \n \r \t é \u{0}"))
  }

  @Test func surrogatePairsCombineIntoOneScalar() throws {
    #expect(try reader.read(#""\ud83d\ude00""#) == .string("😀"))
  }

  @Test(arguments: [#""\ud83d""#, #""\ude00""#, #""\ud83d\u0041""#, #""\ud83dx""#])
  func loneSurrogatesAreRejected(_ text: String) {
    #expect(throws: JSONError.self) { try reader.read(text) }
  }

  @Test(
    arguments: [
      [0x22, 0xC3, 0x28, 0x22],  // invalid continuation
      [0x22, 0xED, 0xA0, 0x80, 0x22],  // UTF-8 encoded surrogate
      [0x22, 0xC0, 0xAF, 0x22],  // overlong slash
      [0x22, 0xF8, 0x88, 0x80, 0x80, 0x80, 0x22],  // 5-byte form
      [0x22, 0xE2, 0x82, 0x22],  // truncated sequence
    ] as [[UInt8]])
  func invalidUTF8IsRejected(_ bytes: [UInt8]) {
    #expect(throws: JSONError.self) { try reader.read(bytes) }
  }

  @Test func rawMultibyteUTF8IsAccepted() throws {
    #expect(try reader.read(Array("\"Fünf Tage 😀\"".utf8)) == .string("Fünf Tage 😀"))
  }

  @Test func unescapedControlCharactersAreRejected() {
    #expect(throws: JSONError.self) { try reader.read([0x22, 0x0A, 0x22]) }
  }

  @Test(arguments: [
    #"{"a": 1, "b": 2, "a": 3}"#, #"{"a": 1, "a": 2}"#, #"{"b": 1, "a": 2, "c": 3, "b": 4}"#,
    #"{"z": 1, "y": 2, "x": 3, "z": 4}"#, #"{"a": 1, "\u0061": 2}"#,
    // More keys than the insertion sort takes, the duplicate first and last.
    "{" + (0..<20).map { "\"k\($0)\": \($0)" }.joined(separator: ", ") + ", \"k0\": 0}",
  ])
  func duplicateKeysAreRejected(_ text: String) {
    #expect {
      try reader.read(text)
    } throws: { error in
      (error as? JSONError)?.code == .duplicateKey
    }
  }

  @Test func objectsWithManyDistinctKeysInAnyOrderAreRead() throws {
    var generator = SplitMix64(seed: 5)
    for count in [2, 3, 16, 17, 40] {
      let keys = (0..<count).map { "k\($0)" }.shuffled(using: &generator)
      let text = "{" + keys.map { "\"\($0)\": 1" }.joined(separator: ", ") + "}"
      let object = try #require(try reader.read(text).objectValue)
      #expect(object.members.map(\.key) == keys.sorted())
    }
  }

  @Test func keysThatAreCanonicallyEquivalentButDifferentBytesAreDistinct() throws {
    let object = try #require(try reader.read("{\"\u{E9}\": 1, \"e\u{301}\": 2}").objectValue)
    #expect(object.count == 2)
  }

  @Test func nestingBeyondTheLimitFailsCleanly() {
    let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
    #expect {
      try reader.read(deep)
    } throws: { error in
      (error as? JSONError)?.code == .tooDeep
    }
  }

  @Test func nestingWithinTheLimitIsAccepted() throws {
    let depth = 200
    let text =
      String(repeating: "{\"a\":", count: depth) + "1" + String(repeating: "}", count: depth)
    _ = try reader.read(text)
  }

  @Test(arguments: [
    "", " ", "{", "[1,]", "{\"a\" 1}", "{\"a\":1,}", "tru", "nul", "[1] x", "{1: 2}", "'a'",
  ])
  func malformedDocumentsAreRejected(_ text: String) {
    #expect(throws: JSONError.self) { try reader.read(text) }
  }

  @Test func errorsReportTheByteOffset() {
    #expect {
      try reader.read("[1, 2, x]")
    } throws: { error in
      (error as? JSONError)?.offset == 7
    }
  }

  @Test func membersAreSortedByCodePoint() throws {
    let object = try #require(
      try reader.read("{\"b\": 1, \"B\": 2, \"\u{E000}\": 3, \"😀\": 4, \"a\": 5}").objectValue)
    // Code point order puts U+E000 before U+1F600; UTF-16 order would not.
    #expect(object.keys == ["B", "a", "b", "\u{E000}", "😀"])
  }

  @Test func largeStringsAreRead() throws {
    let big = String(repeating: "x", count: 5_000_000)
    #expect(try reader.read("\"\(big)\"") == .string(big))
  }
}
