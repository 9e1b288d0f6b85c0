print("pinpadd")
