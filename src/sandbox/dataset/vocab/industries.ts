import type { IndustryFamily } from "./job-titles";

/**
 * LinkedIn industries used by the dataset, with what a company in each one sells, to whom, and
 * the result it promises. `ABOUT_US_ORG` sentences are built from these (see `companies.ts`).
 * `sizeBias` shifts the employee-range distribution (+ bigger, - smaller).
 * `nameSuffixes` end company names ("Bluepeak Systems").
 */
export interface IndustryVocab {
  name: string;
  family: IndustryFamily;
  weight: number;
  sizeBias: number;
  nameSuffixes: readonly string[];
  offerings: readonly string[];
  customers: readonly string[];
  outcomes: readonly string[];
}

const list = (s: string): string[] => s.split(";").map((w) => w.trim());

export const INDUSTRIES: readonly IndustryVocab[] = [
  {
    name: "Software Development",
    family: "tech",
    weight: 10,
    sizeBias: 0,
    nameSuffixes: list("Software; Systems; Technologies; Labs; Tech; Digital; Cloud; AI; Apps"),
    offerings: list(
      "workflow automation software; project management software; customer relationship management software; applicant tracking software; accounting software for small businesses; low-code application platform; API management platform; developer productivity tools; e-signature software; field service management software; scheduling and booking software; inventory management software; expense management software; learning management system",
    ),
    customers: list(
      "mid-sized companies; small businesses; enterprises; fast-growing startups; professional services firms; distributed teams",
    ),
    outcomes: list(
      "automate repetitive work; replace spreadsheets with one system; cut manual data entry; save hours every week; get a single source of truth; scale without adding headcount",
    ),
  },
  {
    name: "IT Services and IT Consulting",
    family: "tech",
    weight: 8,
    sizeBias: 0.3,
    nameSuffixes: list("IT; Consulting; Solutions; Technologies; Systems; Tech Partners; Digital; Networks"),
    offerings: list(
      "managed IT services; cloud migration consulting; Microsoft 365 and Azure consulting; SAP implementation services; Salesforce implementation services; IT outsourcing and help desk support; network infrastructure services; custom software development services; ERP consulting; data center and infrastructure management",
    ),
    customers: list(
      "small and mid-sized businesses; enterprise IT departments; public sector agencies; healthcare organizations; manufacturers; financial institutions; retailers",
    ),
    outcomes: list(
      "modernize legacy systems; reduce IT downtime; move workloads to the cloud; keep their infrastructure secure and up to date; lower the cost of running IT; get round-the-clock technical support",
    ),
  },
  {
    name: "Computer and Network Security",
    family: "tech",
    weight: 2.5,
    sizeBias: 0,
    nameSuffixes: list("Security; Cyber; Defense; Shield; Sentinel; Secure; Guard"),
    offerings: list(
      "cloud security software; endpoint detection and response software; identity and access management platform; managed detection and response services; email security gateway; network firewall appliances; vulnerability management software; security awareness training; penetration testing services; zero trust network access; security information and event management platform",
    ),
    customers: list(
      "banks and credit unions; hospitals and health systems; enterprise security teams; government agencies; mid-sized companies; managed service providers",
    ),
    outcomes: list(
      "detect threats before they spread; stop ransomware and phishing attacks; meet compliance requirements such as SOC 2 and ISO 27001; protect sensitive data in the cloud; respond to security incidents faster; secure remote employees",
    ),
  },
  {
    name: "Technology, Information and Internet",
    family: "tech",
    weight: 3,
    sizeBias: 0.2,
    nameSuffixes: list("Technologies; Digital; Interactive; Online; Media; Labs; Networks"),
    offerings: list(
      "online marketplace; price comparison website; mobile apps for consumers; web hosting and domain services; online review platform; digital maps and location data; search and discovery platform; online community platform; web analytics platform",
    ),
    customers: list(
      "consumers and businesses; local businesses; online communities; small businesses; millions of users",
    ),
    outcomes: list(
      "reach new audiences online; find what they need faster; make better decisions online; grow their presence on the web; connect with the right people",
    ),
  },
  {
    name: "Telecommunications",
    family: "tech",
    weight: 1.5,
    sizeBias: 1,
    nameSuffixes: list("Telecom; Networks; Communications; Connect; Wireless; Fiber"),
    offerings: list(
      "fiber broadband internet; mobile network services; business phone systems; unified communications and VoIP; satellite connectivity; private 5G networks; SD-WAN and managed network services; data center interconnection",
    ),
    customers: list(
      "businesses and households; small businesses; enterprises with many offices; public sector organizations; communities across the region",
    ),
    outcomes: list(
      "stay connected reliably; lower connectivity costs; connect remote sites securely; get better coverage; keep calls and data flowing",
    ),
  },
  {
    name: "Computer Games",
    family: "tech",
    weight: 0.6,
    sizeBias: -0.3,
    nameSuffixes: list("Games; Studios; Interactive; Entertainment; Play"),
    offerings: list(
      "mobile puzzle games; multiplayer online games; console and PC games; virtual reality games; free-to-play strategy games; narrative adventure games",
    ),
    customers: list("gamers worldwide; casual mobile players; console players; PC gamers; esports fans"),
    outcomes: list(
      "enjoy immersive worlds; play together online; keep coming back for new content; compete with friends",
    ),
  },
  {
    name: "Semiconductor Manufacturing",
    family: "tech",
    weight: 0.6,
    sizeBias: 1,
    nameSuffixes: list("Semiconductor; Microsystems; Silicon; Devices; Micro"),
    offerings: list(
      "power management chips; analog and mixed-signal semiconductors; microcontrollers for embedded systems; RF chips for wireless devices; AI accelerator chips; image sensors; memory chips",
    ),
    customers: list(
      "automotive manufacturers; consumer electronics brands; industrial equipment makers; data center operators; telecom equipment vendors",
    ),
    outcomes: list(
      "build smaller and more efficient devices; run AI workloads at lower power; bring connected products to market; improve battery life",
    ),
  },
  {
    name: "Financial Services",
    family: "finance",
    weight: 5,
    sizeBias: 0.3,
    nameSuffixes: list("Financial; Capital; Finance; Payments; Lending; Pay; Money"),
    offerings: list(
      "payment processing; small business loans; payroll and benefits administration; merchant cash advance; invoice factoring; cross-border payments; corporate expense cards; equipment financing",
    ),
    customers: list(
      "small businesses; online merchants; mid-sized companies; freelancers and contractors; e-commerce brands; restaurants and retailers",
    ),
    outcomes: list(
      "manage cash flow; keep their finances under control; lower the cost of running their business; save time on financial admin; grow with confidence",
    ),
  },
  {
    name: "Banking",
    family: "finance",
    weight: 2,
    sizeBias: 1.3,
    nameSuffixes: list("Bank; Bancorp; Savings; Trust; Credit Union; Banking"),
    offerings: list(
      "retail banking; commercial banking and treasury services; mortgages and home equity loans; digital banking; private banking; business checking accounts; credit cards",
    ),
    customers: list(
      "individuals and businesses; local communities; families and small businesses; customers across the region",
    ),
    outcomes: list(
      "save and borrow with confidence; manage their money anywhere; reach their financial goals; bank with a local partner",
    ),
  },
  {
    name: "Insurance",
    family: "finance",
    weight: 2.5,
    sizeBias: 0.8,
    nameSuffixes: list("Insurance; Assurance; Mutual; Underwriters; Insurance Group"),
    offerings: list(
      "commercial property and casualty insurance; life insurance; health insurance plans; auto insurance; cyber insurance; workers compensation insurance; insurance brokerage; pet insurance",
    ),
    customers: list(
      "individuals and businesses; small businesses and families; employers and their staff; policyholders nationwide",
    ),
    outcomes: list(
      "protect what matters most; manage risk; file claims online in minutes; find the right coverage at a fair price",
    ),
  },
  {
    name: "Investment Management",
    family: "finance",
    weight: 1.5,
    sizeBias: 0,
    nameSuffixes: list("Capital; Asset Management; Investments; Advisors; Wealth; Partners"),
    offerings: list(
      "asset management; wealth management; hedge fund strategies; fixed income portfolios; sustainable investing funds; retirement plan advisory; real estate investment funds",
    ),
    customers: list(
      "institutional investors; pension funds; high-net-worth families; endowments and foundations; financial advisors",
    ),
    outcomes: list(
      "grow and preserve wealth; achieve long-term returns; diversify their portfolios; invest responsibly",
    ),
  },
  {
    name: "Venture Capital and Private Equity Principals",
    family: "finance",
    weight: 0.6,
    sizeBias: -0.8,
    nameSuffixes: list("Ventures; Capital; Partners; Equity; Investors"),
    offerings: list(
      "seed and early-stage venture capital; growth equity investments; private equity buyouts; venture debt; startup studio and incubator programs",
    ),
    customers: list(
      "early-stage startups; founders; mid-market companies; family-owned businesses; limited partners",
    ),
    outcomes: list(
      "scale their companies; fund their next stage of growth; build category-leading businesses; plan succession and exits",
    ),
  },
  {
    name: "Accounting",
    family: "professional",
    weight: 2,
    sizeBias: -0.6,
    nameSuffixes: list("CPAs; Accounting; Advisory; & Associates; Accountants; Tax"),
    offerings: list(
      "audit and assurance services; tax preparation and planning; outsourced bookkeeping; fractional CFO services; payroll services; forensic accounting",
    ),
    customers: list(
      "small businesses; nonprofits; family-owned companies; startups; individuals with complex tax needs",
    ),
    outcomes: list(
      "stay compliant; reduce their tax burden; keep accurate books; prepare for audits and fundraising",
    ),
  },
  {
    name: "Hospitals and Health Care",
    family: "health",
    weight: 5,
    sizeBias: 1,
    nameSuffixes: list("Health; Medical Center; Healthcare; Clinic; Care; Health System"),
    offerings: list(
      "primary care clinics; hospital and emergency care; home health care; telehealth services; behavioral health services; physical therapy and rehabilitation; urgent care centers; senior living and assisted care; diagnostic imaging centers",
    ),
    customers: list("patients and families; seniors; local communities; employers; veterans"),
    outcomes: list(
      "get care close to home; recover faster; manage chronic conditions; see a doctor the same day",
    ),
  },
  {
    name: "Pharmaceutical Manufacturing",
    family: "health",
    weight: 1.5,
    sizeBias: 1.2,
    nameSuffixes: list("Pharma; Pharmaceuticals; Therapeutics; Biopharma; Life Sciences"),
    offerings: list(
      "generic medicines; oncology therapies; vaccines; specialty pharmaceuticals for rare diseases; over-the-counter medicines; contract drug manufacturing",
    ),
    customers: list("patients; hospitals; pharmacies; healthcare providers; biotech companies"),
    outcomes: list(
      "access affordable treatment; treat serious diseases; bring new drugs to market; improve patient outcomes",
    ),
  },
  {
    name: "Medical Equipment Manufacturing",
    family: "health",
    weight: 1.5,
    sizeBias: 0.6,
    nameSuffixes: list("Medical; MedTech; Devices; Surgical; Diagnostics"),
    offerings: list(
      "surgical instruments; diagnostic imaging equipment; patient monitoring devices; orthopedic implants; wearable medical devices; laboratory diagnostic tests",
    ),
    customers: list("hospitals; surgeons; clinics; laboratories; home care patients"),
    outcomes: list(
      "diagnose disease earlier; perform safer surgeries; monitor patients remotely; improve clinical outcomes",
    ),
  },
  {
    name: "Biotechnology Research",
    family: "health",
    weight: 1.2,
    sizeBias: 0,
    nameSuffixes: list("Bio; Biosciences; Therapeutics; Genomics; Biotech"),
    offerings: list(
      "gene therapy research; antibody discovery; genomic sequencing services; cell therapy development; synthetic biology platform; drug discovery using machine learning",
    ),
    customers: list(
      "pharmaceutical companies; research institutions; hospitals; patients with rare diseases",
    ),
    outcomes: list(
      "discover new medicines; understand disease biology; bring therapies into clinical trials; accelerate research",
    ),
  },
  {
    name: "Retail",
    family: "consumer",
    weight: 4,
    sizeBias: 0.3,
    nameSuffixes: list("Outfitters; Goods; Market; Store; Shop; Brands; Supply"),
    offerings: list(
      "outdoor clothing and gear; home furniture and decor; consumer electronics; grocery stores; beauty and skincare products; sporting goods; pet supplies; children's clothing; eyewear; jewelry",
    ),
    customers: list(
      "shoppers; families; online shoppers; customers in their local communities; value-conscious shoppers",
    ),
    outcomes: list(
      "shop online or in store; find quality products at fair prices; get fast delivery; find what they need in one place",
    ),
  },
  {
    name: "Manufacturing",
    family: "industrial",
    weight: 4,
    sizeBias: 0.6,
    nameSuffixes: list("Industries; Manufacturing; Components; Industrial; Fabrication; Works"),
    offerings: list(
      "precision machined components; industrial automation equipment; packaging machinery; plastic injection molding; metal fabrication; industrial pumps and valves; electrical enclosures; HVAC equipment; robotics for factories",
    ),
    customers: list(
      "automotive suppliers; food processors; aerospace manufacturers; energy companies; construction firms; original equipment manufacturers",
    ),
    outcomes: list(
      "increase production uptime; reduce manufacturing costs; meet tight tolerances; automate their factories",
    ),
  },
  {
    name: "Motor Vehicle Manufacturing",
    family: "industrial",
    weight: 1.2,
    sizeBias: 1.3,
    nameSuffixes: list("Motors; Automotive; Mobility; Vehicles"),
    offerings: list(
      "electric vehicles; commercial trucks; automotive parts; electric buses; battery packs for vehicles; motorcycles",
    ),
    customers: list("drivers; fleet operators; transit agencies; car dealerships; delivery companies"),
    outcomes: list(
      "move to zero-emission transport; lower fleet running costs; drive safer; travel farther on a charge",
    ),
  },
  {
    name: "Aviation and Aerospace Component Manufacturing",
    family: "industrial",
    weight: 0.7,
    sizeBias: 1,
    nameSuffixes: list("Aerospace; Aviation; Aero; Dynamics"),
    offerings: list(
      "aircraft engine components; aircraft interiors; landing gear systems; avionics; aircraft maintenance and repair",
    ),
    customers: list("airlines; defense agencies; aircraft manufacturers; aerospace and defense companies"),
    outcomes: list("fly safely; reduce aircraft downtime; meet strict safety standards; keep fleets flying"),
  },
  {
    name: "Chemical Manufacturing",
    family: "industrial",
    weight: 0.8,
    sizeBias: 1,
    nameSuffixes: list("Chemicals; Chemical; Materials; Polymers"),
    offerings: list(
      "specialty chemicals; industrial coatings and adhesives; polymers and resins; cleaning chemicals; agricultural chemicals; water treatment chemicals",
    ),
    customers: list(
      "manufacturers; farmers; construction companies; municipal water utilities; consumer brands",
    ),
    outcomes: list(
      "make more durable products; treat water safely; improve crop yields; use more sustainable materials",
    ),
  },
  {
    name: "Food and Beverage Manufacturing",
    family: "industrial",
    weight: 1.5,
    sizeBias: 0.5,
    nameSuffixes: list("Foods; Brewing; Beverages; Kitchen; Provisions; Farms"),
    offerings: list(
      "craft beer; plant-based foods; packaged snacks; coffee roasting; dairy products; frozen meals; bottled juices; organic baby food",
    ),
    customers: list("grocery retailers; restaurants and cafes; consumers; food service distributors"),
    outcomes: list("eat healthier; enjoy local flavors; stock their shelves; serve quality food"),
  },
  {
    name: "Construction",
    family: "industrial",
    weight: 3.5,
    sizeBias: 0,
    nameSuffixes: list("Construction; Builders; Contracting; Building Group; Contractors"),
    offerings: list(
      "commercial construction; residential home building; roofing services; electrical contracting; plumbing and mechanical contracting; general contracting; road and infrastructure construction; interior fit-out",
    ),
    customers: list(
      "property developers; private and public clients; owners and developers; commercial and residential clients",
    ),
    outcomes: list(
      "finish projects on time and on budget; build safely; deliver complex projects; build with quality materials; upgrade aging buildings and infrastructure",
    ),
  },
  {
    name: "Civil Engineering",
    family: "industrial",
    weight: 1,
    sizeBias: 0,
    nameSuffixes: list("Engineering; Engineers; Consulting Engineers; Infrastructure"),
    offerings: list(
      "structural engineering; transportation engineering; geotechnical engineering; water and wastewater engineering; land surveying",
    ),
    customers: list("municipalities; developers; transportation agencies; architects; utilities"),
    outcomes: list(
      "design safe infrastructure; plan roads and bridges; meet permitting requirements; manage stormwater",
    ),
  },
  {
    name: "Architecture and Planning",
    family: "professional",
    weight: 1,
    sizeBias: -0.8,
    nameSuffixes: list("Architects; Design Studio; Architecture; Studio"),
    offerings: list(
      "architectural design; interior design; urban planning; landscape architecture; sustainable building design",
    ),
    customers: list("developers; homeowners; universities; cities; corporate clients"),
    outcomes: list(
      "create inspiring spaces; design energy-efficient buildings; plan vibrant neighborhoods; renovate historic buildings",
    ),
  },
  {
    name: "Transportation, Logistics, Supply Chain and Storage",
    family: "industrial",
    weight: 3,
    sizeBias: 0.3,
    nameSuffixes: list("Logistics; Freight; Shipping; Transport; Supply Chain; Cargo"),
    offerings: list(
      "freight forwarding; third-party logistics and warehousing; last-mile delivery; cold chain logistics; customs brokerage; ocean and air freight; supply chain visibility software",
    ),
    customers: list("e-commerce brands; manufacturers; retailers; food producers; importers and exporters"),
    outcomes: list(
      "ship goods on time; reduce freight costs; track shipments in real time; deliver to customers faster",
    ),
  },
  {
    name: "Truck Transportation",
    family: "industrial",
    weight: 1,
    sizeBias: -0.2,
    nameSuffixes: list("Trucking; Transport; Carriers; Haulage; Express"),
    offerings: list(
      "full truckload shipping; less-than-truckload freight; refrigerated trucking; flatbed hauling; dedicated fleet services",
    ),
    customers: list("manufacturers; retailers; distributors; food producers; building suppliers"),
    outcomes: list("move freight reliably; meet delivery windows; reduce empty miles; keep shelves stocked"),
  },
  {
    name: "Oil and Gas",
    family: "industrial",
    weight: 1.2,
    sizeBias: 1,
    nameSuffixes: list("Energy; Petroleum; Resources; Oil & Gas"),
    offerings: list(
      "oilfield services; natural gas exploration and production; pipeline operations; drilling equipment; refining and fuel distribution",
    ),
    customers: list("energy producers; utilities; refineries; industrial customers; fuel retailers"),
    outcomes: list(
      "produce energy safely; reduce methane emissions; improve drilling efficiency; keep fuel supply reliable",
    ),
  },
  {
    name: "Renewable Energy Power Generation",
    family: "industrial",
    weight: 1,
    sizeBias: 0,
    nameSuffixes: list("Energy; Solar; Power; Renewables; Wind"),
    offerings: list(
      "solar panel installation; wind farm development; battery energy storage; electric vehicle charging stations; community solar projects; energy efficiency retrofits",
    ),
    customers: list(
      "homeowners and businesses; utilities and municipalities; commercial property owners; communities",
    ),
    outcomes: list(
      "cut energy bills; reach net-zero targets; store clean power; switch to renewable electricity",
    ),
  },
  {
    name: "Utilities",
    family: "industrial",
    weight: 0.8,
    sizeBias: 1.2,
    nameSuffixes: list("Utilities; Power; Water; Energy"),
    offerings: list(
      "electricity distribution; water supply and treatment; natural gas distribution; smart metering; grid modernization",
    ),
    customers: list("households; businesses; municipalities; industrial sites"),
    outcomes: list(
      "keep the lights on; deliver clean water; modernize the grid; use energy more efficiently",
    ),
  },
  {
    name: "Marketing Services",
    family: "professional",
    weight: 3,
    sizeBias: -0.6,
    nameSuffixes: list("Marketing; Digital; Agency; Media; Creative; Growth"),
    offerings: list(
      "search engine optimization; paid social advertising; content marketing; email marketing campaigns; brand strategy; marketing automation consulting; influencer marketing; account-based marketing programs",
    ),
    customers: list(
      "B2B technology companies; e-commerce brands; local businesses; healthcare brands; consumer startups",
    ),
    outcomes: list(
      "generate more qualified leads; grow online sales; build brand awareness; improve marketing ROI; rank higher in search",
    ),
  },
  {
    name: "Advertising Services",
    family: "professional",
    weight: 1.5,
    sizeBias: -0.2,
    nameSuffixes: list("Advertising; Media; Creative; Studios; Agency"),
    offerings: list(
      "creative advertising campaigns; programmatic media buying; video production for ads; out-of-home advertising; advertising technology platform",
    ),
    customers: list(
      "consumer brands; retailers; automotive brands; media publishers; entertainment companies",
    ),
    outcomes: list(
      "reach the right audience; launch memorable campaigns; measure advertising performance; grow market share",
    ),
  },
  {
    name: "Staffing and Recruiting",
    family: "professional",
    weight: 2.5,
    sizeBias: 0,
    nameSuffixes: list("Staffing; Talent; Recruiting; Search; Workforce; People"),
    offerings: list(
      "IT staffing; executive search; temporary staffing for warehouses; healthcare staffing; recruitment process outsourcing; contract engineering talent",
    ),
    customers: list(
      "technology companies; hospitals; logistics companies; finance teams; manufacturers; growing businesses",
    ),
    outcomes: list("hire qualified candidates faster; fill temporary roles; find leaders; scale their teams"),
  },
  {
    name: "Human Resources Services",
    family: "professional",
    weight: 1,
    sizeBias: -0.2,
    nameSuffixes: list("HR; People; Workforce Solutions; Benefits"),
    offerings: list(
      "outsourced HR services; employee benefits consulting; professional employer organization services; leadership training; employee engagement surveys",
    ),
    customers: list("small businesses; fast-growing startups; mid-sized employers; nonprofits"),
    outcomes: list(
      "stay compliant with employment law; offer competitive benefits; retain their people; develop better managers",
    ),
  },
  {
    name: "Business Consulting and Services",
    family: "professional",
    weight: 4,
    sizeBias: 0,
    nameSuffixes: list("Consulting; Advisors; Partners; Group; Advisory; Strategy"),
    offerings: list(
      "management consulting; operations consulting; supply chain consulting; digital transformation consulting; market research; outsourced customer support; procurement advisory; change management consulting",
    ),
    customers: list(
      "Fortune 500 companies; private equity portfolio companies; mid-sized manufacturers; public sector agencies; healthcare systems",
    ),
    outcomes: list(
      "improve operational efficiency; enter new markets; cut costs; execute their strategy; make better decisions with data",
    ),
  },
  {
    name: "Law Practice",
    family: "professional",
    weight: 2,
    sizeBias: -0.5,
    nameSuffixes: list("Law; Legal; LLP; Law Group; & Partners; Attorneys"),
    offerings: list(
      "corporate law; litigation; employment law; intellectual property law; immigration law; real estate law; family law; personal injury law",
    ),
    customers: list(
      "businesses and individuals; clients across the region; companies and their owners; private clients",
    ),
    outcomes: list(
      "protect their rights; resolve disputes efficiently; navigate complex regulations; get practical legal advice",
    ),
  },
  {
    name: "Legal Services",
    family: "professional",
    weight: 1,
    sizeBias: -0.3,
    nameSuffixes: list("Legal; Legal Services; Compliance; Counsel"),
    offerings: list(
      "legal process outsourcing; e-discovery services; contract management services; court reporting; legal translation",
    ),
    customers: list("law firms; corporate legal departments; insurers; government agencies"),
    outcomes: list("review documents faster; manage contracts; reduce legal spend; prepare for litigation"),
  },
  {
    name: "Real Estate",
    family: "consumer",
    weight: 3,
    sizeBias: -0.3,
    nameSuffixes: list("Realty; Properties; Real Estate; Homes; Estates; Property Group"),
    offerings: list(
      "residential real estate brokerage; commercial property management; office leasing; vacation rentals; real estate development; property investment",
    ),
    customers: list(
      "buyers, sellers and investors; property owners; businesses and families; tenants and landlords",
    ),
    outcomes: list(
      "find the right property; maximize the value of their property; make confident real estate decisions; grow property portfolios",
    ),
  },
  {
    name: "Higher Education",
    family: "education",
    weight: 2.5,
    sizeBias: 1.2,
    nameSuffixes: list("University; College; Institute; School of Business; Academy"),
    offerings: list(
      "undergraduate and graduate degree programs; online degree programs; research in engineering and medicine; business school programs; community college courses; continuing education",
    ),
    customers: list("students; working adults; international students; researchers; employers"),
    outcomes: list("earn a degree; advance their careers; conduct world-class research; learn new skills"),
  },
  {
    name: "Primary and Secondary Education",
    family: "education",
    weight: 1.5,
    sizeBias: 0.3,
    nameSuffixes: list("School; Academy; Schools; Learning; Education"),
    offerings: list(
      "K-12 education; private schooling; international school programs; after-school tutoring; special education services",
    ),
    customers: list("students; parents; school districts; local families"),
    outcomes: list("learn and grow; prepare for college; reach their potential; build strong foundations"),
  },
  {
    name: "E-Learning Providers",
    family: "education",
    weight: 1,
    sizeBias: -0.3,
    nameSuffixes: list("Learning; Academy; Education; Edu; Skills"),
    offerings: list(
      "online coding courses; corporate e-learning; language learning app; exam preparation courses; online tutoring platform; certification training",
    ),
    customers: list("adult learners; employers; students; teachers; career changers"),
    outcomes: list(
      "learn new skills online; pass professional exams; upskill their workforce; study at their own pace",
    ),
  },
  {
    name: "Food and Beverage Services",
    family: "consumer",
    weight: 1.5,
    sizeBias: 0,
    nameSuffixes: list("Catering; Hospitality Group; Foods; Kitchen; Coffee"),
    offerings: list(
      "corporate catering; contract food services for hospitals and schools; coffee shop chain; meal delivery; event catering",
    ),
    customers: list("office workers; hospitals; schools; event organizers; commuters"),
    outcomes: list("eat well at work; host memorable events; get healthy meals delivered"),
  },
  {
    name: "Restaurants",
    family: "consumer",
    weight: 1.5,
    sizeBias: -0.5,
    nameSuffixes: list("Restaurant Group; Kitchen; Grill; Eatery; Pizza; Bistro"),
    offerings: list(
      "fast casual restaurants; pizza restaurants; fine dining; burger restaurant chain; sushi bars; bakery cafes",
    ),
    customers: list("families; diners; food lovers; local neighborhoods; travelers"),
    outcomes: list("enjoy fresh food; dine out affordably; celebrate special occasions; order ahead online"),
  },
  {
    name: "Hospitality",
    family: "consumer",
    weight: 1.5,
    sizeBias: 0.4,
    nameSuffixes: list("Hotels; Resorts; Hospitality; Inns; Stays"),
    offerings: list(
      "boutique hotels; beach resorts; serviced apartments; conference and event venues; hotel management services",
    ),
    customers: list("business travelers; vacationing families; event planners; hotel owners"),
    outcomes: list("relax and recharge; host successful events; travel in comfort; increase hotel occupancy"),
  },
  {
    name: "Travel Arrangements",
    family: "consumer",
    weight: 0.8,
    sizeBias: -0.2,
    nameSuffixes: list("Travel; Journeys; Tours; Trips; Expeditions"),
    offerings: list(
      "corporate travel management; guided adventure tours; online travel booking; cruise vacation packages; group travel planning",
    ),
    customers: list("business travelers; adventure seekers; families; companies; school groups"),
    outcomes: list(
      "travel without hassle; discover new destinations; control travel spend; plan group trips",
    ),
  },
  {
    name: "Wellness and Fitness Services",
    family: "consumer",
    weight: 1,
    sizeBias: -0.7,
    nameSuffixes: list("Fitness; Wellness; Yoga; Athletics; Health Club"),
    offerings: list(
      "gyms and fitness clubs; yoga studios; corporate wellness programs; personal training; nutrition coaching",
    ),
    customers: list("members; employers; athletes; busy professionals"),
    outcomes: list("get fit; reduce stress; build healthy habits; improve employee wellbeing"),
  },
  {
    name: "Consumer Services",
    family: "consumer",
    weight: 1.2,
    sizeBias: -0.5,
    nameSuffixes: list("Services; Home Services; Care; Solutions"),
    offerings: list(
      "home cleaning services; pest control; moving and storage; home repair and handyman services; lawn care and landscaping",
    ),
    customers: list("homeowners; renters; families; property managers"),
    outcomes: list("keep their homes in great shape; move without stress; save time on chores"),
  },
  {
    name: "Wholesale",
    family: "industrial",
    weight: 1.5,
    sizeBias: 0,
    nameSuffixes: list("Distribution; Wholesale; Supply; Trading; Distributors"),
    offerings: list(
      "wholesale food distribution; electrical supplies distribution; industrial MRO supplies; medical supplies distribution; building materials supply",
    ),
    customers: list("restaurants; contractors; hospitals; retailers; factories"),
    outcomes: list("get supplies delivered on time; reduce procurement costs; keep inventory stocked"),
  },
  {
    name: "Media Production",
    family: "consumer",
    weight: 0.8,
    sizeBias: -0.4,
    nameSuffixes: list("Media; Productions; Pictures; Studios; Films"),
    offerings: list(
      "documentary film production; podcast production; corporate video production; animation studio; television series production",
    ),
    customers: list("streaming platforms; broadcasters; brands; audiences worldwide"),
    outcomes: list("tell compelling stories; grow their audiences; explain complex ideas with video"),
  },
  {
    name: "Non-profit Organizations",
    family: "public",
    weight: 2,
    sizeBias: -0.3,
    nameSuffixes: list("Foundation; Alliance; Fund; Trust; Initiative; Society"),
    offerings: list(
      "food bank programs; youth mentoring programs; environmental conservation; affordable housing programs; global health programs; literacy programs",
    ),
    customers: list("families in need; young people; local communities; donors and volunteers"),
    outcomes: list(
      "build stronger communities; create lasting change; reach more people in need; improve lives",
    ),
  },
  {
    name: "Government Administration",
    family: "public",
    weight: 1.5,
    sizeBias: 1,
    nameSuffixes: list("Authority; Agency; Council; Department; Office"),
    offerings: list(
      "public transit services; municipal services; economic development programs; public health services; tax administration; permits and licensing",
    ),
    customers: list("residents; local businesses; taxpayers; visitors"),
    outcomes: list(
      "access public services; build a stronger local economy; stay safe and healthy; get the services they need",
    ),
  },
];
