import CPinpadShim
import Glibc

/// What the kernel says about a framebuffer (`fb_var_screeninfo` and `fb_fix_screeninfo`,
/// the parts we use).
public struct FramebufferInfo: Equatable, Sendable {
  public struct Field: Equatable, Sendable {
    public var offset: Int
    public var length: Int
    public init(offset: Int, length: Int) {
      self.offset = offset
      self.length = length
    }
  }
  /// `fix.id`, e.g. "bochs-drmdrmfb".
  public var name: String
  /// `var.xres`, `var.yres`: the visible picture.
  public var width: Int
  public var height: Int
  /// `var.xoffset`, `var.yoffset`: where the visible picture starts in memory.
  public var xOffset: Int
  public var yOffset: Int
  public var bitsPerPixel: Int
  public var red: Field
  public var green: Field
  public var blue: Field
  /// `fix.line_length`: bytes from one row to the next (may exceed width × bytes per pixel).
  public var lineLength: Int
  /// `fix.smem_len`: the size of the memory to map.
  public var memoryLength: Int
  /// `fix.visual` is truecolor or directcolor (what we can draw on).
  public var isTrueColor: Bool

  public init(
    name: String = "", width: Int, height: Int, xOffset: Int = 0, yOffset: Int = 0,
    bitsPerPixel: Int, red: Field, green: Field, blue: Field, lineLength: Int, memoryLength: Int,
    isTrueColor: Bool = true
  ) {
    self.name = name
    self.width = width
    self.height = height
    self.xOffset = xOffset
    self.yOffset = yOffset
    self.bitsPerPixel = bitsPerPixel
    self.red = red
    self.green = green
    self.blue = blue
    self.lineLength = lineLength
    self.memoryLength = memoryLength
    self.isTrueColor = isTrueColor
  }

  /// Whether the visible picture lies inside the mapped memory.
  public var fitsInMemory: Bool {
    let bytesPerPixel = (bitsPerPixel + 7) / 8
    guard width > 0, height > 0, lineLength >= (xOffset + width) * bytesPerPixel else {
      return false
    }
    return (yOffset + height) * lineLength <= memoryLength
  }
}

/// How the screen information is asked for: the kernel's ioctls, or a test playing the kernel.
public protocol FramebufferQueries {
  func info(of fd: Int32, path: String) throws -> FramebufferInfo
}

/// FBIOGET_VSCREENINFO and FBIOGET_FSCREENINFO.
public struct LinuxFramebufferQueries: FramebufferQueries {
  public init() {}
  public func info(of fd: Int32, path: String) throws -> FramebufferInfo {
    var v = fb_var_screeninfo()
    var f = fb_fix_screeninfo()
    _ = try framebufferCall("FBIOGET_VSCREENINFO on \(path)") {
      pinpad_ioctl_pointer(fd, PINPAD_FBIOGET_VSCREENINFO, &v)
    }
    _ = try framebufferCall("FBIOGET_FSCREENINFO on \(path)") {
      pinpad_ioctl_pointer(fd, PINPAD_FBIOGET_FSCREENINFO, &f)
    }
    let name = withUnsafeBytes(of: f.id) { raw in
      String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
    }
    return FramebufferInfo(
      name: name, width: Int(v.xres), height: Int(v.yres), xOffset: Int(v.xoffset),
      yOffset: Int(v.yoffset), bitsPerPixel: Int(v.bits_per_pixel),
      red: .init(offset: Int(v.red.offset), length: Int(v.red.length)),
      green: .init(offset: Int(v.green.offset), length: Int(v.green.length)),
      blue: .init(offset: Int(v.blue.offset), length: Int(v.blue.length)),
      lineLength: Int(f.line_length), memoryLength: Int(f.smem_len),
      isTrueColor: f.visual == FB_VISUAL_TRUECOLOR || f.visual == FB_VISUAL_DIRECTCOLOR)
  }
}

/// An open, mapped framebuffer device (`/dev/fbN`). Drawing code writes into `memory`
/// and never reads it back: reads from video memory are slow and show nothing new.
public final class Framebuffer {
  public let path: String
  public let info: FramebufferInfo
  /// The mapping, `info.memoryLength` bytes; nil once closed.
  public private(set) var memory: UnsafeMutableRawPointer?
  private var device: OwnedDescriptor

  /// Opens `path` read-write, asks for its screen information and maps its memory.
  public init(path: String = "/dev/fb0", queries: FramebufferQueries = LinuxFramebufferQueries())
    throws
  {
    self.path = path
    let device = OwnedDescriptor(
      taking: try framebufferCall("cannot open \(path)") { Glibc.open(path, O_RDWR | O_CLOEXEC) })
    let fd = device.fd.rawValue
    do {
      let info = try queries.info(of: fd, path: path)
      guard info.isTrueColor, [16, 24, 32].contains(info.bitsPerPixel) else {
        throw SystemError.failure(
          "\(path): \(info.bitsPerPixel) bpp \(info.isTrueColor ? "" : "palette ")mode is not supported"
        )
      }
      guard info.fitsInMemory else {
        throw SystemError.failure(
          "\(path): visible area does not fit its \(info.memoryLength)-byte memory")
      }
      let mapped = mmap(nil, info.memoryLength, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
      guard let mapped, mapped != MAP_FAILED else {
        throw SystemError("cannot map \(path)", Errno(errno))
      }
      self.info = info
      self.memory = mapped
      self.device = device
    } catch {
      throw error  // `device` closes as it goes
    }
  }

  /// Writes `byte` over the visible rows (used to clear the screen on exit).
  public func clear(byte: UInt8 = 0) {
    guard let memory else { return }
    for row in info.yOffset..<(info.yOffset + info.height) {
      (memory + row * info.lineLength).initializeMemory(
        as: UInt8.self, repeating: byte, count: info.lineLength)
    }
  }

  /// Unmaps and closes; safe to call more than once.
  public func close() {
    if let memory {
      munmap(memory, info.memoryLength)
      self.memory = nil
    }
    device.close()
  }

  deinit { close() }
}
