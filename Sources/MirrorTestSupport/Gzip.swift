/// A minimal gzip encoder (deflate "stored" blocks) so the test server can send
/// `Content-Encoding: gzip` without a compression library; the client must really inflate it.
public enum Gzip {
  public static func encode(_ data: [UInt8]) -> [UInt8] {
    var output: [UInt8] = [0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xFF]
    var offset = 0
    repeat {
      let length = Swift.min(65_535, data.count - offset)
      let final: UInt8 = offset + length >= data.count ? 1 : 0
      output.append(final)
      output.append(UInt8(length & 0xFF))
      output.append(UInt8(length >> 8))
      output.append(UInt8(~length & 0xFF))
      output.append(UInt8((~length >> 8) & 0xFF))
      output.append(contentsOf: data[offset..<(offset + length)])
      offset += length
    } while offset < data.count
    let crc = crc32(data)
    let size = UInt32(truncatingIfNeeded: data.count)
    for shift in stride(from: 0, to: 32, by: 8) {
      output.append(UInt8((crc >> UInt32(shift)) & 0xFF))
    }
    for shift in stride(from: 0, to: 32, by: 8) {
      output.append(UInt8((size >> UInt32(shift)) & 0xFF))
    }
    return output
  }

  static func crc32(_ data: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in data {
      crc ^= UInt32(byte)
      for _ in 0..<8 { crc = (crc >> 1) ^ (0xEDB8_8320 & (0 &- (crc & 1))) }
    }
    return ~crc
  }
}
