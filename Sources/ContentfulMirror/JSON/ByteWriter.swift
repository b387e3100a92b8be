/// Where canonical JSON is written: a `[UInt8]`, or a ``ByteWriter`` on the hot path.
protocol ByteSink: ~Copyable {
  mutating func write(_ byte: UInt8)
  mutating func write(_ bytes: UnsafeBufferPointer<UInt8>)
}

extension ByteSink where Self: ~Copyable {
  /// Writes the UTF-8 of a literal.
  mutating func write(_ text: StaticString) {
    write(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
  }
}

extension [UInt8]: ByteSink {
  mutating func write(_ byte: UInt8) { append(byte) }
  mutating func write(_ bytes: UnsafeBufferPointer<UInt8>) { append(contentsOf: bytes) }
}

/// A growable byte buffer that appends with a bounds check and a `memcpy`: none of the
/// uniqueness checks and generic copying `[UInt8]` does per append. Documents are assembled
/// here and copied out once.
struct ByteWriter: ~Copyable, ByteSink {
  private var start: UnsafeMutablePointer<UInt8>
  private var capacity: Int
  /// The number of bytes written.
  private(set) var count = 0

  init(capacity: Int = 4096) {
    self.capacity = max(capacity, 16)
    start = .allocate(capacity: self.capacity)
  }

  deinit { start.deallocate() }

  mutating func write(_ byte: UInt8) {
    if count == capacity { grow(to: count + 1) }
    start[count] = byte
    count += 1
  }

  mutating func write(_ bytes: UnsafeBufferPointer<UInt8>) {
    guard let source = bytes.baseAddress else { return }
    if count + bytes.count > capacity { grow(to: count + bytes.count) }
    (start + count).update(from: source, count: bytes.count)
    count += bytes.count
  }

  private mutating func grow(to needed: Int) {
    let newCapacity = max(needed, capacity * 2)
    let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
    bigger.update(from: start, count: count)
    start.deallocate()
    start = bigger
    capacity = newCapacity
  }

  /// Forgets the bytes written, keeping the memory.
  mutating func removeAll() { count = 0 }

  /// A copy of the bytes written.
  var bytes: [UInt8] { Array(UnsafeBufferPointer(start: start, count: count)) }

  /// Appends the bytes `other` holds at `range`.
  mutating func write(_ range: Range<Int>, of other: borrowing ByteWriter) {
    write(UnsafeBufferPointer(start: other.start + range.lowerBound, count: range.count))
  }
}
