/**
 * A labelled corpus for the topic benchmark and tests: eight subjects in
 * English, Spanish and Chinese. Each subject and language has its own
 * hand-written pool of requests (written separately per language, not
 * translated word for word), a slot filled from a pool of subject words, and
 * threads of 1–4 user messages composed from them with openers, generic
 * follow-ups ("thanks, can you explain more?") that every subject shares,
 * short topical follow-ups, some lower-casing and dropped punctuation, and a
 * message from another subject now and then (people change the subject).
 * Reproducible: everything is drawn from a seeded generator.
 */
import { seededRandom } from "../../src/topics/Vectors.js"

export const LANGUAGES = ["en", "es", "zh"] as const
export type Language = (typeof LANGUAGES)[number]
export const SUBJECTS = ["billing", "account", "shipping", "cooking", "travel", "coding", "fitness", "career"] as const
export type Subject = (typeof SUBJECTS)[number]

interface Pool {
  readonly sentences: ReadonlyArray<string>
  readonly slots: ReadonlyArray<string>
}

interface LanguagePools {
  readonly openers: ReadonlyArray<string>
  readonly generic: ReadonlyArray<string>
  readonly frames: ReadonlyArray<string>
  readonly subjects: Readonly<Record<Subject, Pool>>
}

const en: LanguagePools = {
  openers: [
    "Hi!",
    "Hello,",
    "Hey there.",
    "Quick question:",
    "Good morning.",
    "I need some help.",
    "Sorry to bother you,",
    ""
  ],
  generic: [
    "Thanks, that helps a lot.",
    "Can you explain that in more detail?",
    "That didn't work, any other ideas?",
    "Ok, and what should I do next?",
    "Could you make it shorter?",
    "Great, thank you!",
    "I'm still confused about this.",
    "Can you give me an example?"
  ],
  frames: [
    "And what about the {x}?",
    "Does the same apply to {x}?",
    "I forgot to mention it's about {x}.",
    "Is it different for {x}?"
  ],
  subjects: {
    billing: {
      sentences: [
        "I was charged twice for my {x} this month.",
        "Can you explain why my invoice is higher than last time?",
        "How do I get a refund for the {x} I cancelled?",
        "My credit card payment keeps getting declined at checkout.",
        "Where can I download the receipts for my company's accounting?",
        "I want to switch from the monthly plan to yearly billing.",
        "There's an unknown charge on my bank statement from you.",
        "Is VAT included in the price of the {x}?",
        "Please cancel my subscription before the next renewal date.",
        "The discount code wasn't applied to my order total.",
        "Can I pay the invoice by bank transfer instead of card?",
        "Why was I billed after my free trial ended?"
      ],
      slots: [
        "premium plan",
        "subscription",
        "annual license",
        "team seats",
        "storage upgrade",
        "pro account",
        "add-on",
        "renewal"
      ]
    },
    account: {
      sentences: [
        "I can't log in even though my password is correct.",
        "The password reset email never arrives in my inbox.",
        "How do I turn on two-factor authentication for my {x}?",
        "My account got locked after too many sign-in attempts.",
        "I lost my phone and now I can't get the verification code.",
        "Someone else may have accessed my {x}, what should I do?",
        "How can I change the email address I use to sign in?",
        "The login page keeps redirecting me back to the start.",
        "I'd like to delete my account and all my personal data.",
        "Is it possible to sign in with Google instead of a password?",
        "My session expires every few minutes and I have to log in again."
      ],
      slots: [
        "account",
        "profile",
        "work account",
        "admin user",
        "email login",
        "mobile app",
        "username",
        "security settings"
      ]
    },
    shipping: {
      sentences: [
        "My package was supposed to arrive on Monday and it still hasn't come.",
        "The tracking number says delivered but I never received the {x}.",
        "Can I change the delivery address after placing the order?",
        "How long does shipping to Canada usually take?",
        "The box arrived damaged and the {x} inside is broken.",
        "Is there express delivery available for this {x}?",
        "The courier left a note but I wasn't home, how do I reschedule?",
        "Do you ship internationally, and how much are the customs fees?",
        "Only half of my order was in the parcel.",
        "I need to return the {x}, where do I send it?",
        "The tracking page hasn't updated in five days."
      ],
      slots: ["parcel", "order", "headphones", "shoes", "laptop", "furniture", "gift box", "phone case"]
    },
    cooking: {
      sentences: [
        "What's a good substitute for eggs when baking with {x}?",
        "How long should I roast a whole chicken in the oven?",
        "My bread never rises properly, what am I doing wrong?",
        "Can you suggest a quick vegetarian dinner with {x}?",
        "How do I keep pasta from sticking together after boiling?",
        "What spices go well with {x} in a curry?",
        "Is it safe to freeze cooked rice and reheat it later?",
        "I want to make homemade pizza dough, what flour should I use?",
        "How can I make the sauce thicker without adding flour?",
        "Give me a simple recipe for {x} soup.",
        "My cake sinks in the middle every time I bake it."
      ],
      slots: ["chickpeas", "lentils", "tomatoes", "mushrooms", "spinach", "salmon", "sweet potatoes", "tofu"]
    },
    travel: {
      sentences: [
        "I need a cheap flight from London to {x} next month.",
        "Do I need a visa to visit {x} as a tourist?",
        "Which neighborhood is best to stay in when visiting {x}?",
        "My flight was cancelled, can I get compensation from the airline?",
        "How much luggage can I bring on a budget airline?",
        "Can you recommend a hotel near the airport with a free shuttle?",
        "What's the best way to get from the airport to the city center?",
        "Is travel insurance worth it for a two week trip?",
        "Plan a five day itinerary for {x} with museums and food.",
        "The hotel booking shows the wrong dates, how do I fix it?",
        "Are trains or buses better for getting around {x}?"
      ],
      slots: ["Japan", "Lisbon", "Mexico City", "Rome", "Thailand", "Iceland", "Morocco", "Peru"]
    },
    coding: {
      sentences: [
        "My {x} code throws a null pointer exception when the list is empty.",
        "How do I fix 'module not found' after installing the package?",
        "Why does this loop never terminate in {x}?",
        "What's the difference between a promise and a callback in JavaScript?",
        "The build fails with a type error I don't understand.",
        "How can I write a unit test for a function that calls an API?",
        "My SQL query is very slow on a table with millions of rows.",
        "Explain how to merge two branches in git without losing changes.",
        "I get a segmentation fault when freeing memory in {x}.",
        "How do I parse a JSON file and read a nested field in {x}?",
        "The compiler says the variable is undefined, but I declared it."
      ],
      slots: ["Python", "Java", "TypeScript", "Rust", "C++", "Go", "Kotlin", "PHP"]
    },
    fitness: {
      sentences: [
        "How many times a week should I do {x} to build muscle?",
        "What's a good beginner running plan for a first 5k?",
        "My knees hurt after squats, is my form wrong?",
        "How much protein do I need per day if I lift weights?",
        "Can you make me a 30 minute home workout without equipment?",
        "Is it better to do cardio before or after {x}?",
        "I want to lose weight, how big should my calorie deficit be?",
        "How do I stretch properly after a long run?",
        "What should I eat before a morning workout at the gym?",
        "How long should I rest between sets of {x}?",
        "I've hit a plateau in my training, how do I keep progressing?"
      ],
      slots: [
        "strength training",
        "push-ups",
        "deadlifts",
        "yoga",
        "cycling",
        "pull-ups",
        "interval training",
        "bench press"
      ]
    },
    career: {
      sentences: [
        "Can you review my resume for a {x} position?",
        "How should I answer 'what is your biggest weakness' in an interview?",
        "Write a cover letter for a junior {x} role.",
        "I got a job offer, how do I negotiate a higher salary?",
        "How do I explain a two year gap in my employment history?",
        "What questions should I ask the recruiter at the end of the interview?",
        "Should I mention my side projects on my CV?",
        "How do I tell my manager that I'm resigning?",
        "I have a second round interview tomorrow, how do I prepare?",
        "Is it okay to apply for a {x} job without the required degree?",
        "How can I make my LinkedIn profile stand out to hiring managers?"
      ],
      slots: [
        "data analyst",
        "project manager",
        "nurse",
        "marketing",
        "software engineer",
        "accountant",
        "teacher",
        "sales"
      ]
    }
  }
}

const es: LanguagePools = {
  openers: [
    "Hola,",
    "¡Buenas!",
    "Una pregunta:",
    "Buenos días.",
    "Necesito ayuda.",
    "Perdona la molestia,",
    "Hola, qué tal.",
    ""
  ],
  generic: [
    "Gracias, me sirve mucho.",
    "¿Puedes explicarlo con más detalle?",
    "No funcionó, ¿alguna otra idea?",
    "Vale, ¿y qué hago después?",
    "¿Puedes hacerlo más corto?",
    "¡Genial, gracias!",
    "Sigo sin entenderlo del todo.",
    "¿Me das un ejemplo?"
  ],
  frames: [
    "¿Y en el caso de {x}?",
    "¿Vale lo mismo para {x}?",
    "Se me olvidó decir que es sobre {x}.",
    "¿Cambia algo con {x}?"
  ],
  subjects: {
    billing: {
      sentences: [
        "Me cobraron dos veces {x} este mes.",
        "¿Por qué mi factura es más alta que la del mes pasado?",
        "¿Cómo pido el reembolso de {x} que cancelé?",
        "El pago con mi tarjeta de crédito sigue siendo rechazado.",
        "¿Dónde puedo descargar los recibos para la contabilidad de mi empresa?",
        "Quiero cambiar el plan mensual por facturación anual.",
        "Aparece un cargo desconocido de ustedes en mi extracto bancario.",
        "¿El precio de {x} incluye el IVA?",
        "Por favor, cancelen mi suscripción antes de la próxima renovación.",
        "El código de descuento no se aplicó al total del pedido.",
        "¿Puedo pagar la factura por transferencia bancaria en vez de con tarjeta?",
        "¿Por qué me cobraron cuando terminó la prueba gratuita?"
      ],
      slots: [
        "la suscripción",
        "el plan premium",
        "la licencia anual",
        "la cuota mensual",
        "el almacenamiento extra",
        "la cuenta profesional",
        "la renovación",
        "el paquete de equipo"
      ]
    },
    account: {
      sentences: [
        "No puedo iniciar sesión aunque la contraseña es correcta.",
        "Nunca me llega el correo para restablecer la contraseña.",
        "¿Cómo activo la verificación en dos pasos en {x}?",
        "Mi cuenta quedó bloqueada después de varios intentos fallidos.",
        "Perdí el móvil y ya no recibo el código de verificación.",
        "Creo que alguien entró en {x} sin permiso, ¿qué hago?",
        "¿Cómo cambio el correo electrónico con el que inicio sesión?",
        "La página de acceso me devuelve todo el rato al inicio.",
        "Quiero borrar mi cuenta y todos mis datos personales.",
        "¿Se puede entrar con Google en lugar de usar contraseña?",
        "La sesión se cierra cada pocos minutos y tengo que volver a entrar."
      ],
      slots: [
        "mi cuenta",
        "mi perfil",
        "la cuenta del trabajo",
        "el usuario administrador",
        "la aplicación móvil",
        "mi usuario",
        "la configuración de seguridad",
        "el correo"
      ]
    },
    shipping: {
      sentences: [
        "Mi paquete tenía que llegar el lunes y todavía no ha llegado.",
        "El seguimiento dice entregado pero nunca recibí {x}.",
        "¿Puedo cambiar la dirección de entrega después de hacer el pedido?",
        "¿Cuánto tarda normalmente el envío a Argentina?",
        "La caja llegó aplastada y {x} no funciona.",
        "¿Hay envío urgente disponible para {x}?",
        "El repartidor dejó un aviso pero no estaba en casa, ¿cómo reprogramo la entrega?",
        "¿Hacen envíos internacionales? ¿Cuánto cuestan las aduanas?",
        "Solo venía la mitad de mi pedido en el paquete.",
        "Necesito devolver {x}, ¿a dónde lo envío?",
        "La página de seguimiento no se actualiza desde hace cinco días."
      ],
      slots: [
        "el pedido",
        "los auriculares",
        "las zapatillas",
        "el portátil",
        "el sofá",
        "la caja de regalo",
        "la funda del móvil",
        "la lámpara"
      ]
    },
    cooking: {
      sentences: [
        "¿Qué puedo usar en vez de huevo para una receta con {x}?",
        "¿Cuánto tiempo hay que asar un pollo entero en el horno?",
        "Mi pan nunca sube bien, ¿qué estoy haciendo mal?",
        "¿Me sugieres una cena vegetariana rápida con {x}?",
        "¿Cómo evito que la pasta se pegue después de cocerla?",
        "¿Qué especias combinan bien con {x} en un guiso?",
        "¿Es seguro congelar arroz cocido y recalentarlo después?",
        "Quiero hacer masa de pizza casera, ¿qué harina uso?",
        "¿Cómo espeso la salsa sin añadir harina?",
        "Dame una receta sencilla de sopa de {x}.",
        "El bizcocho se me hunde en el centro cada vez que lo horneo."
      ],
      slots: ["garbanzos", "lentejas", "tomates", "champiñones", "espinacas", "salmón", "boniato", "tofu"]
    },
    travel: {
      sentences: [
        "Busco un vuelo barato de Madrid a {x} para el mes que viene.",
        "¿Necesito visado para viajar a {x} como turista?",
        "¿En qué barrio conviene alojarse si visito {x}?",
        "Me cancelaron el vuelo, ¿la aerolínea me tiene que indemnizar?",
        "¿Cuánto equipaje puedo llevar en una aerolínea de bajo coste?",
        "¿Me recomiendas un hotel cerca del aeropuerto con traslado gratuito?",
        "¿Cuál es la mejor forma de ir del aeropuerto al centro de la ciudad?",
        "¿Vale la pena contratar un seguro de viaje para dos semanas?",
        "Organízame un itinerario de cinco días por {x} con museos y buena comida.",
        "La reserva del hotel tiene las fechas equivocadas, ¿cómo lo arreglo?",
        "¿Es mejor moverse en tren o en autobús por {x}?"
      ],
      slots: ["Japón", "Lisboa", "Ciudad de México", "Roma", "Tailandia", "Islandia", "Marruecos", "Perú"]
    },
    coding: {
      sentences: [
        "Mi código en {x} lanza una excepción de puntero nulo cuando la lista está vacía.",
        "¿Cómo soluciono el error 'module not found' después de instalar el paquete?",
        "¿Por qué este bucle nunca termina en {x}?",
        "¿Qué diferencia hay entre una promesa y un callback en JavaScript?",
        "La compilación falla con un error de tipos que no entiendo.",
        "¿Cómo escribo una prueba unitaria para una función que llama a una API?",
        "Mi consulta SQL va muy lenta en una tabla con millones de filas.",
        "Explícame cómo fusionar dos ramas en git sin perder cambios.",
        "Me da un fallo de segmentación al liberar memoria en {x}.",
        "¿Cómo leo un archivo JSON y accedo a un campo anidado en {x}?",
        "El compilador dice que la variable no está definida, pero la declaré."
      ],
      slots: ["Python", "Java", "TypeScript", "Rust", "C++", "Go", "Kotlin", "PHP"]
    },
    fitness: {
      sentences: [
        "¿Cuántas veces por semana debo hacer {x} para ganar músculo?",
        "¿Qué plan de carrera para principiantes me recomiendas para mis primeros 5 km?",
        "Me duelen las rodillas después de las sentadillas, ¿tengo mala técnica?",
        "¿Cuánta proteína necesito al día si levanto pesas?",
        "Hazme una rutina de 30 minutos en casa sin material.",
        "¿Es mejor hacer cardio antes o después de {x}?",
        "Quiero adelgazar, ¿qué déficit de calorías es razonable?",
        "¿Cómo estiro bien después de correr mucho rato?",
        "¿Qué como antes de entrenar por la mañana en el gimnasio?",
        "¿Cuánto descanso entre series de {x}?",
        "Me he estancado en el entrenamiento, ¿cómo sigo progresando?"
      ],
      slots: [
        "entrenamiento de fuerza",
        "flexiones",
        "peso muerto",
        "yoga",
        "ciclismo",
        "dominadas",
        "entrenamiento por intervalos",
        "press de banca"
      ]
    },
    career: {
      sentences: [
        "¿Puedes revisar mi currículum para un puesto de {x}?",
        "¿Cómo respondo a '¿cuál es tu mayor debilidad?' en una entrevista?",
        "Escríbeme una carta de presentación para un puesto junior de {x}.",
        "Me han hecho una oferta de trabajo, ¿cómo negocio un sueldo más alto?",
        "¿Cómo explico un hueco de dos años en mi experiencia laboral?",
        "¿Qué preguntas le hago al reclutador al final de la entrevista?",
        "¿Debería poner mis proyectos personales en el CV?",
        "¿Cómo le digo a mi jefe que voy a dimitir?",
        "Mañana tengo la segunda entrevista, ¿cómo me preparo?",
        "¿Puedo optar a un trabajo de {x} sin la titulación que piden?",
        "¿Cómo hago que mi perfil de LinkedIn destaque ante los reclutadores?"
      ],
      slots: [
        "analista de datos",
        "jefe de proyecto",
        "enfermería",
        "marketing",
        "ingeniero de software",
        "contabilidad",
        "profesor",
        "ventas"
      ]
    }
  }
}

const zh: LanguagePools = {
  openers: ["你好，", "您好！", "请问一下，", "麻烦问下，", "早上好。", "我想咨询一下：", "打扰了，", ""],
  generic: [
    "谢谢，很有帮助。",
    "能再详细解释一下吗？",
    "试过了还是不行，还有别的办法吗？",
    "好的，那下一步该怎么做？",
    "可以说得简短一点吗？",
    "太好了，谢谢！",
    "我还是有点不明白。",
    "能举个例子吗？"
  ],
  frames: ["那{x}呢？", "{x}也一样吗？", "忘了说，是关于{x}的。", "如果是{x}会不一样吗？"],
  subjects: {
    billing: {
      sentences: [
        "这个月我的{x}被扣了两次钱。",
        "为什么这次的账单比上次高？",
        "我已经取消了{x}，怎么申请退款？",
        "我的信用卡付款一直被拒绝。",
        "在哪里可以下载公司报销用的发票和收据？",
        "我想把月付改成按年付费。",
        "银行账单上有一笔你们的不明扣款。",
        "{x}的价格包含增值税吗？",
        "请在下次续费之前帮我取消订阅。",
        "优惠码没有用在我的订单金额上。",
        "发票可以用银行转账支付吗，不用信用卡？",
        "免费试用结束后为什么还自动扣费了？"
      ],
      slots: ["会员套餐", "订阅", "年度许可证", "团队席位", "存储空间升级", "专业版账户", "附加服务", "自动续费"]
    },
    account: {
      sentences: [
        "密码明明是对的，可是我登录不上去。",
        "重置密码的邮件一直收不到。",
        "怎么给我的{x}开启两步验证？",
        "尝试登录次数太多，账号被锁定了。",
        "手机丢了，现在收不到验证码。",
        "我的{x}好像被别人登录过，该怎么办？",
        "怎样修改登录用的邮箱地址？",
        "登录页面一直跳回首页。",
        "我想注销账号并删除所有个人数据。",
        "可以用微信登录而不用密码吗？",
        "每隔几分钟就掉线，需要重新登录。"
      ],
      slots: ["账号", "个人资料", "工作账号", "管理员账户", "邮箱登录", "手机应用", "用户名", "安全设置"]
    },
    shipping: {
      sentences: [
        "我的包裹本来周一就该到，现在还没收到。",
        "物流显示已签收，但我根本没拿到{x}。",
        "下单以后还能修改收货地址吗？",
        "寄到加拿大一般需要多长时间？",
        "箱子送到时已经破损，里面的{x}也坏了。",
        "这个{x}可以加急配送吗？",
        "快递员来的时候我不在家，怎么改约送货时间？",
        "你们支持国际运输吗？关税大概多少？",
        "包裹里只有一半的商品。",
        "我需要退回{x}，应该寄到哪里？",
        "物流信息已经五天没有更新了。"
      ],
      slots: ["包裹", "订单", "耳机", "鞋子", "笔记本电脑", "家具", "礼盒", "手机壳"]
    },
    cooking: {
      sentences: [
        "烤蛋糕的时候没有鸡蛋，可以用什么代替？",
        "整只鸡放进烤箱要烤多久？",
        "我做的面包总是发不起来，问题出在哪里？",
        "推荐一道用{x}做的快手素食晚餐。",
        "面条煮好以后怎么才能不粘在一起？",
        "用{x}做咖喱放什么香料好？",
        "煮熟的米饭可以冷冻以后再加热吗？",
        "想在家做披萨面饼，应该用哪种面粉？",
        "不加淀粉怎样让酱汁变稠？",
        "给我一个简单的{x}汤的做法。",
        "我烤的蛋糕每次中间都会塌下去。"
      ],
      slots: ["鹰嘴豆", "扁豆", "西红柿", "蘑菇", "菠菜", "三文鱼", "红薯", "豆腐"]
    },
    travel: {
      sentences: [
        "下个月想买一张从上海飞{x}的便宜机票。",
        "去{x}旅游需要办签证吗？",
        "去{x}玩住在哪个区比较方便？",
        "航班被取消了，航空公司会赔偿吗？",
        "廉价航空可以带多少行李？",
        "推荐一家机场附近有免费接驳车的酒店。",
        "从机场到市中心怎么走最方便？",
        "两个星期的旅行有必要买旅游保险吗？",
        "帮我安排一个{x}五日游的行程，要有博物馆和美食。",
        "酒店预订的日期错了，怎么修改？",
        "在{x}旅行坐火车好还是坐大巴好？"
      ],
      slots: ["日本", "里斯本", "墨西哥城", "罗马", "泰国", "冰岛", "摩洛哥", "秘鲁"]
    },
    coding: {
      sentences: [
        "我的{x}代码在列表为空时抛出空指针异常。",
        "安装了依赖包以后还是报 module not found 错误，怎么解决？",
        "为什么这个循环在{x}里永远不会结束？",
        "JavaScript 里 Promise 和回调函数有什么区别？",
        "编译失败，报了一个看不懂的类型错误。",
        "怎么给调用接口的函数写单元测试？",
        "几百万行的表上执行 SQL 查询非常慢。",
        "怎样在 git 里合并两个分支而不丢失修改？",
        "在{x}里释放内存的时候出现段错误。",
        "怎么用{x}解析 JSON 文件并读取嵌套字段？",
        "编译器说变量未定义，可是我已经声明过了。"
      ],
      slots: ["Python", "Java", "TypeScript", "Rust", "C++", "Go", "Kotlin", "PHP"]
    },
    fitness: {
      sentences: [
        "想增肌的话，一周做几次{x}合适？",
        "新手第一次跑五公里，有什么训练计划？",
        "做完深蹲膝盖疼，是不是动作不标准？",
        "举铁的话每天需要吃多少蛋白质？",
        "帮我制定一个不用器械的三十分钟居家锻炼。",
        "有氧运动应该在{x}之前做还是之后做？",
        "我想减肥，每天的热量缺口应该多大？",
        "长跑之后怎样正确拉伸？",
        "早上去健身房锻炼之前应该吃什么？",
        "{x}每组之间要休息多久？",
        "训练进入平台期了，怎么继续进步？"
      ],
      slots: ["力量训练", "俯卧撑", "硬拉", "瑜伽", "骑自行车", "引体向上", "间歇训练", "卧推"]
    },
    career: {
      sentences: [
        "能帮我看看应聘{x}的简历吗？",
        "面试时被问到最大的缺点该怎么回答？",
        "帮我写一封应聘初级{x}岗位的求职信。",
        "我拿到了工作录用通知，怎么谈更高的薪水？",
        "简历上有两年的空白期，该怎么解释？",
        "面试结束时应该问招聘人员什么问题？",
        "个人项目要不要写进简历里？",
        "怎么跟领导提出辞职？",
        "明天是第二轮面试，我该怎么准备？",
        "没有要求的学历可以申请{x}的工作吗？",
        "怎样让我的领英主页吸引招聘经理？"
      ],
      slots: ["数据分析师", "项目经理", "护士", "市场营销", "软件工程师", "会计", "老师", "销售"]
    }
  }
}

export const POOLS: Readonly<Record<Language, LanguagePools>> = { en, es, zh }

export interface LabelledThread {
  readonly id: string
  readonly texts: ReadonlyArray<string>
  readonly createdAt: number
  readonly lastMessageAt: number
  readonly subject: Subject
  readonly language: Language
}

export interface CorpusOptions {
  /** Threads per subject and language. */
  readonly perCell: number
  readonly languages?: ReadonlyArray<Language>
  readonly subjects?: ReadonlyArray<Subject>
  readonly seed?: number
  /** Prefix of the thread ids (corpora made for one test must not share ids by accident). */
  readonly idPrefix?: string
  /** Share of follow-up messages taken from another subject (default 0.05). */
  readonly offTopic?: number
}

const DAY = 24 * 3600 * 1000
const EPOCH = Date.UTC(2026, 0, 1)

/** The labelled threads, shuffled (a job reads them in no particular order). */
export const makeCorpus = (options: CorpusOptions): Array<LabelledThread> => {
  const random = seededRandom(options.seed ?? 2026)
  const pick = <A>(items: ReadonlyArray<A>): A => {
    const item = items[Math.floor(random() * items.length)]
    if (item === undefined) throw new Error("pick from an empty pool")
    return item
  }
  const languages = options.languages ?? LANGUAGES
  const subjects = options.subjects ?? SUBJECTS
  const offTopic = options.offTopic ?? 0.05
  const fill = (sentence: string, pool: Pool) => sentence.replace("{x}", pick(pool.slots))
  const roughen = (text: string, language: Language) => {
    const r = random()
    if (language !== "zh" && r < 0.15) return text.toLowerCase()
    if (r < 0.25) return text.replace(/[.!?。！？]+$/u, "")
    return text
  }
  const threads: Array<Omit<LabelledThread, "id">> = []
  for (const language of languages) {
    const pools = POOLS[language]
    for (const subject of subjects) {
      const pool = pools.subjects[subject]
      for (let i = 0; i < options.perCell; i++) {
        const messages: Array<string> = []
        const length = 1 + Math.floor(random() * 4)
        const used = new Set<string>()
        let attempts = 0
        const opener = pick(pools.openers)
        const first = fill(pick(pool.sentences), pool)
        used.add(first)
        messages.push(opener === "" ? first : `${opener}${language === "zh" ? "" : " "}${first}`)
        while (messages.length < length && attempts++ < 20) {
          const r = random()
          let text: string
          if (r < 0.5) text = fill(pick(pool.sentences), pool)
          else if (r < 0.75) text = pick(pools.generic)
          else if (r < 0.75 + offTopic) {
            const other = pools.subjects[pick(SUBJECTS.filter((s) => s !== subject))]
            text = fill(pick(other.sentences), other)
          } else text = fill(pick(pools.frames), pool)
          if (used.has(text)) continue
          used.add(text)
          messages.push(text)
        }
        const createdAt = EPOCH + Math.floor(random() * 60 * DAY)
        threads.push({
          texts: messages.map((m) => roughen(m, language)),
          createdAt,
          lastMessageAt: createdAt + Math.floor(random() * 2 * DAY),
          subject,
          language
        })
      }
    }
  }
  // Shuffle (Fisher–Yates) before numbering, so ids and order say nothing of the subject.
  for (let i = threads.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    const a = threads[i]
    const b = threads[j]
    if (a !== undefined && b !== undefined) {
      threads[i] = b
      threads[j] = a
    }
  }
  return threads.map((thread, n) => ({ id: `${options.idPrefix ?? "th"}_${String(n).padStart(6, "0")}`, ...thread }))
}
