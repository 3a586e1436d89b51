# expect: stopped
# class: syntax
# why: 25 nested for loops: past the compiler's limit of 20 statically nested blocks
result = 0
for a0 in [1]:
    for a1 in [1]:
        for a2 in [1]:
            for a3 in [1]:
                for a4 in [1]:
                    for a5 in [1]:
                        for a6 in [1]:
                            for a7 in [1]:
                                for a8 in [1]:
                                    for a9 in [1]:
                                        for a10 in [1]:
                                            for a11 in [1]:
                                                for a12 in [1]:
                                                    for a13 in [1]:
                                                        for a14 in [1]:
                                                            for a15 in [1]:
                                                                for a16 in [1]:
                                                                    for a17 in [1]:
                                                                        for a18 in [1]:
                                                                            for a19 in [1]:
                                                                                for a20 in [1]:
                                                                                    for a21 in [1]:
                                                                                        for a22 in [1]:
                                                                                            for a23 in [1]:
                                                                                                for a24 in [1]:
                                                                                                    x = 1
raise ValueError("the end")
