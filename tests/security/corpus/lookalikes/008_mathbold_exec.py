# expect: reject
# class: lookalikes
# why: mathematical bold 𝐞𝐱𝐞𝐜 normalizes to exec
𝐞𝐱𝐞𝐜("x = 1")
result = 1
