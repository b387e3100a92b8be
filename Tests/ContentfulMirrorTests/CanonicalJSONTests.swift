import Testing

@testable import ContentfulMirror

@Suite struct CanonicalJSONTests {
  func canonical(_ text: String) throws -> String {
    String(decoding: CanonicalJSON.encode(try JSONReader().read(text)), as: UTF8.self)
  }

  @Test func objectsAreIndentedSortedAndEndWithANewline() throws {
    let output = try canonical(#"{"z": [1, {"y": true, "x": null}], "a": {}, "m": []}"#)
    #expect(
      output == """
        {
          "a": {},
          "m": [],
          "z": [
            1,
            {
              "x": null,
              "y": true
            }
          ]
        }

        """)
  }

  @Test(arguments: [
    #"{"z": [1, {"y": true, "x": null}], "a": {}, "m": [], "n": -0.50e+3}"#,
    #""a\/b \"q\" \\ \n\t\r\b\f \u0001 \u007f \u00e9 \ud83d\ude00 \u2028""#,
    #"{"k\u00e9y": 1, "key": [], "ke": {"\u0000": "\/"}, "\"": false}"#,
    "{\"\u{E9}\": 1, \"e\u{301}\": \"\u{1F600}\", \"\u{E000}\": [[[]]], \"\": {}}",
    "  [ ]  ", "\"plain\"", "123", "null",
  ])
  func tapeOutputEqualsTheValueTreeOutput(_ text: String) throws {
    let tape = try JSONTape(parsing: Array(text.utf8))
    var fromTape: [UInt8] = []
    tape.withView { CanonicalJSON.write($0, JSONTape.root, indent: 0, to: &fromTape) }
    fromTape.append(0x0A)
    #expect(fromTape == CanonicalJSON.encode(try JSONReader().read(text)))
  }

  @Test func numbersAreWrittenAsTheyWereRead() throws {
    #expect(
      try canonical("[1.50, -0, 1e400, 0.1E-3]") == "[\n  1.50,\n  -0,\n  1e400,\n  0.1E-3\n]\n")
  }

  @Test func stringsEscapeOnlyWhatJSONRequires() throws {
    let output = try canonical(#""a/b \"q\" \\ \n\t\r\b\f \u0001 \u007f é 😀 \u2028""#)
    #expect(output == "\"a/b \\\"q\\\" \\\\ \\n\\t\\r\\b\\f \\u0001 \u{7F} é 😀 \u{2028}\"\n")
  }

  @Test func keyOrderIsCodePointOrderNotUTF16Order() throws {
    let output = try canonical("{\"😀\": 1, \"\u{E000}\": 2}")
    #expect(output == "{\n  \"\u{E000}\": 2,\n  \"😀\": 1\n}\n")
  }

  @Test func encodingIsStableUnderReordering() throws {
    let first = try canonical(#"{"b": {"d": 1, "c": 2}, "a": [3]}"#)
    let second = try canonical(#"{"a": [3], "b": {"c": 2, "d": 1}}"#)
    #expect(first == second)
  }

  @Test func readingCanonicalOutputGivesTheSameValue() throws {
    let value = try JSONReader().read(#"{"k": ["\u0000", 1.0, {"n": null}], "é": "x"}"#)
    #expect(try JSONReader().read(CanonicalJSON.encode(value)) == value)
  }

  @Test func objectSubscriptInsertsReplacesAndRemoves() {
    var object = JSONObject()
    object["b"] = 1
    object["a"] = 2
    object["b"] = 3
    #expect(object.keys == ["a", "b"])
    #expect(object["b"] == 3)
    object["a"] = nil
    #expect(object.keys == ["b"])
  }
}
