# expect: reject
# class: lookalikes
# why: __ｉｍｐｏｒｔ__ with fullwidth letters
result = __ｉｍｐｏｒｔ__("os")
