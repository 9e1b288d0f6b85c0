/// The evdev event types and codes the core reads (linux/input-event-codes.h), in one
/// place, so the core stays free of Glibc. Key codes are `KeyCode`'s (KeyNames.swift).
public enum EvdevCode {
  public static let evSyn: UInt16 = 0x00
  public static let evKey: UInt16 = 0x01
  public static let evRel: UInt16 = 0x02
  public static let evAbs: UInt16 = 0x03

  public static let synReport: UInt16 = 0
  public static let synDropped: UInt16 = 3

  public static let absX: UInt16 = 0x00
  public static let absY: UInt16 = 0x01
  public static let absMTSlot: UInt16 = 0x2f
  public static let absMTPositionX: UInt16 = 0x35
  public static let absMTPositionY: UInt16 = 0x36
  public static let absMTTrackingID: UInt16 = 0x39

  public static let relX: UInt16 = 0x00
  public static let relY: UInt16 = 0x01

  public static let btnLeft: UInt16 = 0x110
  public static let btnTouch: UInt16 = 0x14a
}
