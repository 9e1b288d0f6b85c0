import CLibdrm
import Glibc
import PinpadCore
import PinpadSystem

/// A mode of a connector as the kernel gives it (libdrm's `drmModeModeInfo`, kept whole
/// for the modeset), with its size and refresh read out.
public struct DRMMode {
  fileprivate var info: drmModeModeInfo
  public var width: Int { Int(info.hdisplay) }
  public var height: Int { Int(info.vdisplay) }
  public var refresh: Int { Int(info.vrefresh) }
}

/// What a CRTC showed before pinpadd took it (libdrm's `drmModeCrtc`), to put back.
public struct DRMSavedCrtc {
  fileprivate var crtc: drmModeCrtc
}

/// A connector found by a full probe, with what driving it needs.
public struct DRMConnector {
  public var id: UInt32
  public var summary: DRMConnectorSummary
  /// The kernel's modes, in the order of `summary.modes`.
  public var modes: [DRMMode]
  /// The encoder driving it now (0: none) and those that could.
  public var encoder: UInt32
  public var encoders: [UInt32]
}

/// A dumb buffer added as a framebuffer and mapped: 32 bpp XRGB8888 rows `pitch` apart.
public struct DRMBuffer {
  public var handle: UInt32
  public var framebuffer: UInt32
  public var width: Int
  public var height: Int
  public var pitch: Int
  public var size: Int
  public var memory: UnsafeMutableRawPointer
}

/// An open DRM card (`/dev/dri/cardN`) through libdrm: the one file that calls it. Every
/// failure is a `SystemError` naming the call and the card.
public final class DRMCard {
  public let path: String
  private var device: OwnedDescriptor
  /// Counts the flip-complete events read; libdrm's handler adds to it.
  private let flips = UnsafeMutablePointer<Int>.allocate(capacity: 1)

  /// Opens `path` (non-blocking: events are read when the loop says so) and checks that
  /// it does modesetting with dumb buffers.
  public init(path: String) throws {
    self.path = path
    do {
      device = try OwnedDescriptor.open(path, O_RDWR | O_NONBLOCK)
    } catch {
      throw SystemError("cannot open \(path)", error)
    }
    flips.initialize(to: 0)
    var dumb: UInt64 = 0
    guard drmGetCap(device.fd.rawValue, PINPAD_DRM_CAP_DUMB_BUFFER, &dumb) == 0, dumb != 0,
      let resources = drmModeGetResources(device.fd.rawValue)
    else {
      throw SystemError.failure("\(path) is not a modesetting card with dumb buffers")
    }
    drmModeFreeResources(resources)
  }

  deinit {
    flips.deallocate()
  }

  public var fd: FileDescriptor { device.fd }
  private var raw: Int32 { device.fd.rawValue }

  /// `/dev/dri/card*` in number order.
  public static func cardPaths(directory: String = "/dev/dri") -> [String] {
    FileSystem.list(directory).filter {
      $0.hasPrefix("card") && $0.dropFirst(4).allSatisfy { $0.isASCII && $0.isNumber }
        && $0.count > 4
    }
    .sorted { ($0.count, $0) < ($1.count, $1) }
    .map { "\(directory)/\($0)" }
  }

  private func check(_ what: String, _ result: Int32) throws {
    guard result < 0 else { return }
    // libdrm's mode calls return -errno, its others -1 with errno set.
    throw SystemError("\(what) on \(path)", Errno(result == -1 ? errno : -result))
  }

  /// Every connector, each probed in full (`drmModeGetConnector`, not the `...Current`
  /// that returns what is cached: an unprobed connector reads `unknown` with no modes).
  public func connectors() throws -> [DRMConnector] {
    guard let resources = drmModeGetResources(raw) else {
      throw SystemError("drmModeGetResources on \(path)", Errno(errno))
    }
    defer { drmModeFreeResources(resources) }
    var found: [DRMConnector] = []
    for i in 0..<Int(resources.pointee.count_connectors) {
      guard let c = drmModeGetConnector(raw, resources.pointee.connectors[i]) else { continue }
      defer { drmModeFreeConnector(c) }
      let type = drmModeGetConnectorTypeName(c.pointee.connector_type).map { String(cString: $0) }
      let name = "\(type ?? "Unknown")-\(c.pointee.connector_type_id)"
      let modes = (0..<Int(c.pointee.count_modes)).map { c.pointee.modes[$0] }
      let status: DRMConnectorSummary.Status
      switch c.pointee.connection {
      case DRM_MODE_CONNECTED: status = .connected
      case DRM_MODE_DISCONNECTED: status = .disconnected
      default: status = .unknown
      }
      let summary = DRMConnectorSummary(
        name: name, status: status,
        modes: modes.map {
          .init(
            width: Int($0.hdisplay), height: Int($0.vdisplay), refresh: Int($0.vrefresh),
            preferred: $0.type & PINPAD_DRM_MODE_TYPE_PREFERRED != 0)
        }, panelRotation: panelRotation(of: c.pointee.connector_id))
      found.append(
        DRMConnector(
          id: c.pointee.connector_id, summary: summary, modes: modes.map(DRMMode.init(info:)),
          encoder: c.pointee.encoder_id,
          encoders: (0..<Int(c.pointee.count_encoders)).map { c.pointee.encoders[$0] }))
    }
    return found
  }

  /// The turn the connector's `panel orientation` property asks for, nil without one.
  private func panelRotation(of connector: UInt32) -> ScreenRotation? {
    guard
      let properties = drmModeObjectGetProperties(raw, connector, PINPAD_DRM_MODE_OBJECT_CONNECTOR)
    else { return nil }
    defer { drmModeFreeObjectProperties(properties) }
    func text<T>(_ value: T) -> String {
      withUnsafeBytes(of: value) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
    for i in 0..<Int(properties.pointee.count_props) {
      guard let property = drmModeGetProperty(raw, properties.pointee.props[i]) else { continue }
      defer { drmModeFreeProperty(property) }
      guard text(property.pointee.name) == "panel orientation" else { continue }
      let value = properties.pointee.prop_values[i]
      for j in 0..<Int(property.pointee.count_enums) where property.pointee.enums[j].value == value
      {
        return ScreenRotation(panelOrientation: text(property.pointee.enums[j].name))
      }
    }
    return nil
  }

  /// A CRTC for `connector`: the one its encoder drives now, else the first free one an
  /// encoder of it can drive.
  public func crtc(for connector: DRMConnector) throws -> UInt32 {
    guard let resources = drmModeGetResources(raw) else {
      throw SystemError("drmModeGetResources on \(path)", Errno(errno))
    }
    defer { drmModeFreeResources(resources) }
    if connector.encoder != 0, let encoder = drmModeGetEncoder(raw, connector.encoder) {
      defer { drmModeFreeEncoder(encoder) }
      if encoder.pointee.crtc_id != 0 { return encoder.pointee.crtc_id }
    }
    for id in connector.encoders {
      guard let encoder = drmModeGetEncoder(raw, id) else { continue }
      defer { drmModeFreeEncoder(encoder) }
      for i in 0..<Int(resources.pointee.count_crtcs)
      where encoder.pointee.possible_crtcs & (1 << UInt32(i)) != 0 {
        return resources.pointee.crtcs[i]
      }
    }
    throw SystemError.failure("\(path): no CRTC can drive \(connector.summary.name)")
  }

  /// What a CRTC shows now, to put back at exit (nil when it cannot be read).
  public func crtcState(_ id: UInt32) -> DRMSavedCrtc? {
    guard let crtc = drmModeGetCrtc(raw, id) else { return nil }
    defer { drmModeFreeCrtc(crtc) }
    return DRMSavedCrtc(crtc: crtc.pointee)
  }

  /// A 32 bpp dumb buffer of `width` x `height`, added as a framebuffer and mapped.
  public func makeBuffer(width: Int, height: Int) throws -> DRMBuffer {
    var handle: UInt32 = 0
    var pitch: UInt32 = 0
    var size: UInt64 = 0
    try check(
      "creating a \(width)x\(height) dumb buffer",
      drmModeCreateDumbBuffer(raw, UInt32(width), UInt32(height), 32, 0, &handle, &pitch, &size))
    var framebuffer: UInt32 = 0
    do {
      try check(
        "drmModeAddFB",
        drmModeAddFB(raw, UInt32(width), UInt32(height), 24, 32, pitch, handle, &framebuffer))
      var offset: UInt64 = 0
      try check("mapping a dumb buffer", drmModeMapDumbBuffer(raw, handle, &offset))
      let memory = mmap(nil, Int(size), PROT_READ | PROT_WRITE, MAP_SHARED, raw, off_t(offset))
      guard let memory, memory != MAP_FAILED else {
        throw SystemError("cannot map a dumb buffer of \(path)", Errno(errno))
      }
      memset(memory, 0, Int(size))
      return DRMBuffer(
        handle: handle, framebuffer: framebuffer, width: width, height: height, pitch: Int(pitch),
        size: Int(size), memory: memory)
    } catch {
      if framebuffer != 0 { drmModeRmFB(raw, framebuffer) }
      drmModeDestroyDumbBuffer(raw, handle)
      throw error
    }
  }

  public func free(_ buffer: DRMBuffer) {
    munmap(buffer.memory, buffer.size)
    drmModeRmFB(raw, buffer.framebuffer)
    drmModeDestroyDumbBuffer(raw, buffer.handle)
  }

  /// Shows `framebuffer` on `crtc` driving `connector` in `mode` (a modeset, at once).
  public func show(
    _ framebuffer: UInt32, crtc: UInt32, connector: UInt32, mode: DRMMode
  ) throws {
    var connector = connector
    var mode = mode.info
    try check("drmModeSetCrtc", drmModeSetCrtc(raw, crtc, framebuffer, 0, 0, &connector, 1, &mode))
  }

  /// Puts a CRTC back as `crtcState` found it, if it showed a framebuffer.
  public func restore(_ saved: DRMSavedCrtc, connector: UInt32) {
    let saved = saved.crtc
    guard saved.buffer_id != 0, saved.mode_valid != 0 else { return }
    var connector = connector
    var mode = saved.mode
    _ = drmModeSetCrtc(raw, saved.crtc_id, saved.buffer_id, saved.x, saved.y, &connector, 1, &mode)
  }

  /// Queues a flip to `framebuffer` at the next vertical blank; its completion arrives
  /// as an event on `fd` (read with `readEvents`).
  public func flip(crtc: UInt32, to framebuffer: UInt32) throws {
    try check(
      "drmModePageFlip",
      drmModePageFlip(raw, crtc, framebuffer, PINPAD_DRM_MODE_PAGE_FLIP_EVENT, flips))
  }

  /// Reads the events waiting on `fd`; returns how many flips completed.
  public func readEvents() -> Int {
    var context = drmEventContext()
    context.version = PINPAD_DRM_EVENT_CONTEXT_VERSION
    context.page_flip_handler = { _, _, _, _, data in
      data?.assumingMemoryBound(to: Int.self).pointee += 1
    }
    let before = flips.pointee
    _ = drmHandleEvent(raw, &context)
    return flips.pointee - before
  }

  /// DRM master: needed to set modes and flip; dropped while another VT is in front.
  public func dropMaster() throws { try check("drmDropMaster", drmDropMaster(raw)) }
  public func setMaster() throws { try check("drmSetMaster", drmSetMaster(raw)) }

  public func close() { device.close() }
}
