import CZlib

/// Why zlib refused some bytes.
public struct ZlibError: Error, Equatable, CustomStringConvertible {
  public var code: Int32
  public var what: String
  public var description: String { "zlib: \(what) (\(code))" }
}

/// Thin wrappers over zlib's streaming calls: the only place that touches `z_stream`.
public enum Zlib {
  /// Inflates zlib or gzip data (`inflateInit2` with 32+MAX_WBITS detects the header).
  /// Fails beyond `limit` output bytes so a hostile file cannot fill memory.
  public static func inflate(_ input: [UInt8], limit: Int = 16 << 20) throws -> [UInt8] {
    var stream = z_stream()
    var rc = inflateInit2_(
      &stream, 32 + MAX_WBITS, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
    guard rc == Z_OK else { throw ZlibError(code: rc, what: "inflateInit2") }
    defer { inflateEnd(&stream) }
    var output: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 64 << 10)
    try input.withUnsafeBufferPointer { inBuf in
      stream.next_in = UnsafeMutablePointer(mutating: inBuf.baseAddress)
      stream.avail_in = uInt(inBuf.count)
      repeat {
        try chunk.withUnsafeMutableBufferPointer { out in
          stream.next_out = out.baseAddress
          stream.avail_out = uInt(out.count)
          rc = CZlib.inflate(&stream, Z_NO_FLUSH)
          guard rc == Z_OK || rc == Z_STREAM_END else {
            throw ZlibError(code: rc, what: "inflate: damaged or truncated data")
          }
          output.append(contentsOf: out[0..<(out.count - Int(stream.avail_out))])
        }
        if output.count > limit { throw ZlibError(code: Z_MEM_ERROR, what: "inflate: too large") }
        if rc == Z_OK && stream.avail_in == 0 && stream.avail_out != 0 {
          throw ZlibError(code: Z_BUF_ERROR, what: "inflate: truncated data")
        }
      } while rc != Z_STREAM_END
    }
    return output
  }

  /// Deflates into the zlib format (RFC 1950), as PNG's IDAT wants.
  public static func deflate(_ input: [UInt8], level: Int32 = 6) throws -> [UInt8] {
    var stream = z_stream()
    var rc = deflateInit_(&stream, level, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
    guard rc == Z_OK else { throw ZlibError(code: rc, what: "deflateInit") }
    defer { deflateEnd(&stream) }
    var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(input.count))) + 16)
    input.withUnsafeBufferPointer { inBuf in
      output.withUnsafeMutableBufferPointer { out in
        stream.next_in = UnsafeMutablePointer(mutating: inBuf.baseAddress)
        stream.avail_in = uInt(inBuf.count)
        stream.next_out = out.baseAddress
        stream.avail_out = uInt(out.count)
        rc = CZlib.deflate(&stream, Z_FINISH)
      }
    }
    guard rc == Z_STREAM_END else { throw ZlibError(code: rc, what: "deflate") }
    output.removeLast(Int(stream.avail_out))
    return output
  }

  /// CRC-32 as PNG and gzip use it, continued from `crc`.
  public static func crc32(_ bytes: ArraySlice<UInt8>, crc: UInt32 = 0) -> UInt32 {
    bytes.withUnsafeBufferPointer { b in
      UInt32(CZlib.crc32(uLong(crc), b.baseAddress, uInt(b.count)))
    }
  }
}
