print("pinpadctl")
