import type { NameRegion } from "./geo";

/**
 * Common first and last names per cultural region (a mix of genders). Spelled as people write
 * them, accents included; emails and profile URLs use an ASCII slug of them.
 */
export interface NameList {
  first: readonly string[];
  last: readonly string[];
}

/** Comma-separated names, duplicates dropped. */
const words = (s: string): string[] => [...new Set(s.split(",").map((w) => w.trim()))];

export const PERSON_NAMES: Record<NameRegion, NameList> = {
  anglo: {
    first: words(
      "James, Mary, John, Patricia, Robert, Jennifer, Michael, Linda, William, Elizabeth, David, Barbara, Richard, Susan, Joseph, Jessica, Thomas, Sarah, Christopher, Karen, Daniel, Lisa, Matthew, Nancy, Anthony, Betty, Mark, Sandra, Steven, Ashley, Andrew, Emily, Joshua, Michelle, Kevin, Amanda, Brian, Melissa, Ryan, Stephanie, Jacob, Rebecca, Nicholas, Laura, Eric, Rachel, Jonathan, Megan, Justin, Hannah, Scott, Olivia, Brandon, Emma, Benjamin, Lauren, Samuel, Katherine, Gregory, Samantha, Tyler, Grace, Aaron, Chloe, Adam, Sophie, Nathan, Charlotte, Zachary, Amelia, Kyle, Natalie, Ethan, Abigail, Liam, Madison, Noah, Claire, Owen, Lucy, Alexander, Victoria, Jack, Rose, Henry, Alice, Patrick, Ella, Sean, Lily, Timothy, Anna, Jason, Julia, Jeffrey, Caroline, Frank, Kimberly, Raymond, Heather, Dennis, Amy, Jerry, Angela, Tyler, Shannon, Peter, Erin, Douglas, Kelly, Harold, Christina, Carl, Allison, Arthur, Diana, Lawrence, Holly, Joe, Jenna, Bryan, Vanessa, Billy, Kathryn, Bruce, Leah, Gabriel, Molly, Logan, Morgan, Austin, Paige, Jordan, Taylor, Dylan, Brooke, Connor, Jacqueline, Evan, Kristen, Luke, Andrea, Mason, Sydney, Caleb, Erica, Isaac, Rachael, Colin, Bethany, Derek, Monica, Travis, Tara, Wesley, Meredith, Graham, Harriet, Oliver, Freya, Harry, Isla, George, Poppy",
    ),
    last: words(
      "Smith, Johnson, Williams, Brown, Jones, Miller, Davis, Wilson, Anderson, Taylor, Thomas, Moore, Jackson, Martin, Thompson, White, Harris, Clark, Lewis, Robinson, Walker, Young, Allen, King, Wright, Scott, Hill, Green, Adams, Baker, Nelson, Carter, Mitchell, Roberts, Turner, Phillips, Campbell, Parker, Evans, Edwards, Collins, Stewart, Morris, Murphy, Cook, Rogers, Morgan, Cooper, Peterson, Reed, Bailey, Bell, Kelly, Howard, Ward, Cox, Richardson, Wood, Watson, Brooks, Bennett, Gray, Hughes, Price, Sanders, Myers, Long, Ross, Foster, Powell, Jenkins, Perry, Russell, Sullivan, Fisher, Hamilton, Graham, Wallace, O'Brien, O'Connor, Kennedy, Murray, Fletcher, Hayes, Jordan, Reynolds, Hunt, Holmes, Palmer, Black, Mills, Knight, Lane, Webb, Warren, Harper, Stone, Owens, Spencer, Gardner, Payne, Pierce, Berry, Matthews, Arnold, Wagner, Willis, Ray, Watkins, Olson, Carroll, Duncan, Snyder, Hart, Cunningham, Bradley, Lane, Andrews, Harrison, Fox, Riley, Armstrong, Carpenter, Weaver, Greene, Lawrence, Elliott, Sims, Austin, Peters, Kelley, Franklin, Lawson, Fields, Ryan, Schmidt, Carr, Wheeler, Chapman, Oliver, Montgomery, Richards, Williamson, Johnston, Banks, Meyer, Bishop, McCoy, Howell, Morrison, Hansen, Harvey, Little, Burton, Stanley, George, Jacobs, Reid, Fuller, Lynch, Dean, Gilbert, Garrett, Welch, Larson, Frazier, Burke, Hanson, Day, Bowman, Fowler, Brewer, Hoffman, Carlson, Pearson, Holland, Douglas, Fleming, Jensen, Byrd, Davidson, Hopkins, May, Terry, Wade, Walters, Curtis, Neal, Caldwell, Lowe, Jennings, Barnett, Graves, Horton, Shelton, Barrett, Sutton, Gregory, McKinney, Lucas, Miles, Craig, Chambers, Holt, Lambert, Fletcher, Watts, Bates, Hale, Rhodes, Beck, Newman, Haynes, McDaniel, Bush, Vaughn, Parks, Dawson, Norris, Hardy, Love, Steele, Curry, Powers, Schultz, Barker, Page, Ball, Keller, Chandler, Weber, Leonard, Walsh, Lyons, Ramsey, Wolfe, Schneider, Mullins, Benson, Sharp, Bowen, Daniel, Barber, Cummings, Hines, Baldwin, Griffith, Hubbard, Reeves, Warner, Stevenson, Burgess, Tate, Cross, Garner, Mann, Mack, Moss, Thornton, Dennis, McGee, Farmer, Glover, Manning, Cohen, Harmon, Rodgers, Robbins, Newton, Todd, Blair, Higgins, Ingram, Reese, Cannon, Strickland, Townsend, Potter, Goodwin, Walton, Rowe, Hampton, Patton, Swanson, Joseph, Francis, Goodman, Yates, Becker, Erickson, Hodges, Conner, Adkins, Webster, Norman, Malone, Hammond, Flowers, Cobb, Moody, Quinn, Blake, Maxwell, Pope, Floyd, Osborne, Paul, McCarthy, Lindsey, Gibbs, Tyler, Gross, Fitzgerald, Stokes, Doyle, Sherman, Saunders, Wise, Gill, Greer, Simon, Waters, Ballard, Schwartz, McBride, Houston, Christensen, Klein, Pratt, Briggs, Parsons, McLaughlin, Zimmerman, French, Buchanan, Moran, Copeland, Roy, Pittman, Brady, McCormick, Holloway, Brock, Poole, Frank, Logan, Owen, Bass, Marsh, Drake, Jefferson, Morton, Abbott, Sparks, Patrick, Norton, Huff, Clayton, Massey, Lloyd, Carson, Bowers, Roberson, Barton, Lamb, Harrington, Casey, Boone, Clarke, Mathis, Singleton, Wilkins, Cain, Bryan, Underwood, Hogan, McKenzie, Collier, Phelps, McGuire, Allison, Bridges, Wilkerson, Nash, Summers, Atkins",
    ),
  },
  hispanic: {
    first: words(
      "José, María, Juan, Ana, Carlos, Carmen, Luis, Laura, Miguel, Lucía, Javier, Marta, Antonio, Sofía, Francisco, Isabel, Alejandro, Elena, Diego, Paula, Pablo, Cristina, Sergio, Andrea, Fernando, Gabriela, Jorge, Valentina, Manuel, Daniela, Ricardo, Camila, Andrés, Mariana, Rafael, Natalia, Eduardo, Verónica, Raúl, Patricia, Alberto, Silvia, Roberto, Adriana, Mateo, Ximena, Santiago, Paola, Emilio, Beatriz, Álvaro, Irene, Hugo, Claudia, Iván, Lorena, Óscar, Rocío, Gonzalo, Julia, Rubén, Nuria, Víctor, Alicia, Adrián, Marina, Ignacio, Carolina, Héctor, Pilar, Arturo, Teresa, Marcos, Rosa, Esteban, Inés, Gustavo, Mónica, Felipe, Alejandra",
    ),
    last: words(
      "García, Rodríguez, Martínez, Hernández, López, González, Pérez, Sánchez, Ramírez, Torres, Flores, Rivera, Gómez, Díaz, Cruz, Morales, Reyes, Gutiérrez, Ortiz, Ruiz, Jiménez, Álvarez, Romero, Herrera, Medina, Castro, Vargas, Ramos, Moreno, Muñoz, Navarro, Domínguez, Vázquez, Castillo, Mendoza, Rojas, Guerrero, Delgado, Ortega, Silva, Contreras, Aguilar, Molina, Serrano, Blanco, Suárez, Cabrera, Fuentes, Vega, Campos, Peña, León, Márquez, Calvo, Gallego, Vidal, Prieto, Pascual, Santana, Herrero, Lozano, Cano, Méndez, Sáez, Garrido, Soto, Cortés, Nieto, Iglesias, Rubio, Marín, Sanz, Crespo, Carmona, Pastor, Santos, Arias, Bravo, Benítez, Acosta",
    ),
  },
  german: {
    first: words(
      "Thomas, Anna, Michael, Julia, Andreas, Katrin, Stefan, Sabine, Christian, Laura, Markus, Lena, Daniel, Sarah, Alexander, Claudia, Tobias, Nina, Jan, Sophie, Matthias, Anja, Florian, Lisa, Sebastian, Hannah, Jonas, Leonie, Lukas, Franziska, Felix, Katharina, Maximilian, Johanna, Tim, Miriam, Philipp, Carina, Jürgen, Ursula, Wolfgang, Birgit, Uwe, Petra, Niklas, Marie, Moritz, Vanessa, Dirk, Heike",
    ),
    last: words(
      "Müller, Schmidt, Schneider, Fischer, Weber, Meyer, Wagner, Becker, Schulz, Hoffmann, Schäfer, Koch, Bauer, Richter, Klein, Wolf, Schröder, Neumann, Schwarz, Zimmermann, Braun, Krüger, Hofmann, Hartmann, Lange, Schmitt, Werner, Schmitz, Krause, Meier, Lehmann, Schmid, Schulze, Maier, Köhler, Herrmann, König, Walter, Mayer, Huber, Kaiser, Fuchs, Peters, Lang, Scholz, Möller, Weiß, Jung, Hahn, Vogel",
    ),
  },
  french: {
    first: words(
      "Jean, Marie, Pierre, Sophie, Nicolas, Camille, Thomas, Julie, Julien, Claire, Antoine, Céline, François, Nathalie, Mathieu, Aurélie, Guillaume, Émilie, Alexandre, Isabelle, Sébastien, Caroline, Olivier, Charlotte, Laurent, Manon, Maxime, Chloé, Hugo, Léa, Romain, Pauline, Vincent, Élodie, Benoît, Margaux, Étienne, Amélie, Lucas, Inès, Louis, Anaïs, Arnaud, Hélène, Cédric, Juliette, Rémi, Sandrine, Théo, Mathilde",
    ),
    last: words(
      "Martin, Bernard, Dubois, Thomas, Robert, Richard, Petit, Durand, Leroy, Moreau, Simon, Laurent, Lefebvre, Michel, Garcia, David, Bertrand, Roux, Vincent, Fournier, Morel, Girard, André, Lefèvre, Mercier, Dupont, Lambert, Bonnet, François, Martinez, Legrand, Garnier, Faure, Rousseau, Blanc, Guérin, Muller, Henry, Roussel, Nicolas, Perrin, Morin, Mathieu, Clément, Gauthier, Dumont, Lopez, Fontaine, Chevalier, Robin",
    ),
  },
  italian: {
    first: words(
      "Marco, Giulia, Alessandro, Francesca, Luca, Chiara, Andrea, Sara, Matteo, Martina, Lorenzo, Valentina, Davide, Federica, Simone, Alessia, Francesco, Elisa, Giuseppe, Silvia, Roberto, Elena, Stefano, Paola, Riccardo, Giorgia, Federico, Laura, Paolo, Beatrice, Giovanni, Anna, Antonio, Roberta, Fabio, Serena, Gabriele, Claudia, Emanuele, Ilaria, Massimo, Monica, Nicola, Camilla, Pietro, Aurora, Tommaso, Sofia, Daniele, Marta",
    ),
    last: words(
      "Rossi, Russo, Ferrari, Esposito, Bianchi, Romano, Colombo, Ricci, Marino, Greco, Bruno, Gallo, Conti, De Luca, Mancini, Costa, Giordano, Rizzo, Lombardi, Moretti, Barbieri, Fontana, Santoro, Mariani, Rinaldi, Caruso, Ferrara, Galli, Martini, Leone, Longo, Gentile, Martinelli, Vitale, Lombardo, Serra, Coppola, De Santis, D'Angelo, Marchetti, Parisi, Villa, Conte, Ferraro, Ferri, Fabbri, Bianco, Marini, Grasso, Valentini",
    ),
  },
  dutch: {
    first: words(
      "Jan, Anna, Pieter, Emma, Daan, Sanne, Bas, Lotte, Thijs, Femke, Ruben, Anouk, Lars, Eva, Niels, Lisa, Joost, Iris, Bram, Fleur, Sander, Marieke, Koen, Esther, Maarten, Inge, Wouter, Marloes, Jeroen, Sophie, Stijn, Lieke, Tim, Nina, Rik, Linda, Dennis, Kim, Mark, Judith, Arjen, Sabine, Hans, Ellen, Gijs, Noor, Tom, Roos, Sven, Maud",
    ),
    last: words(
      "de Jong, Jansen, de Vries, van den Berg, van Dijk, Bakker, Janssen, Visser, Smit, Meijer, de Boer, Mulder, de Groot, Bos, Vos, Peters, Hendriks, van Leeuwen, Dekker, Brouwer, de Wit, Dijkstra, Smits, de Graaf, van der Meer, van der Linden, Kok, Jacobs, de Haan, Vermeulen, van den Heuvel, van der Veen, van den Broek, de Bruijn, de Bruin, van der Heijden, Schouten, van Beek, Willems, van Vliet, van de Ven, Hoekstra, Maas, Verhoeven, Koster, van Dam, Prins, Blom, Huisman, Peeters",
    ),
  },
  nordic: {
    first: words(
      "Erik, Anna, Lars, Maria, Johan, Karin, Anders, Sara, Magnus, Emma, Henrik, Ingrid, Mikael, Elin, Per, Linnea, Nils, Maja, Oskar, Sofia, Mattias, Hanna, Jonas, Ida, Fredrik, Astrid, Gustav, Frida, Emil, Matilda, Kristian, Sigrid, Mads, Freja, Rasmus, Mette, Søren, Camilla, Jens, Line, Ole, Kari, Håkon, Silje, Mikko, Aino, Juha, Laura, Ville, Elina",
    ),
    last: words(
      "Andersson, Johansson, Karlsson, Nilsson, Eriksson, Larsson, Olsson, Persson, Svensson, Gustafsson, Pettersson, Jonsson, Lindberg, Lindqvist, Lindström, Berg, Bergström, Lundberg, Nyström, Holm, Jensen, Nielsen, Hansen, Pedersen, Andersen, Christensen, Larsen, Sørensen, Rasmussen, Jørgensen, Johansen, Olsen, Berntsen, Haugen, Hagen, Bakken, Solberg, Lie, Korhonen, Virtanen, Mäkinen, Nieminen, Mäkelä, Hämäläinen, Laine, Heikkinen, Koskinen, Järvinen, Lehtonen, Saarinen",
    ),
  },
  polish: {
    first: words(
      "Piotr, Anna, Krzysztof, Maria, Tomasz, Katarzyna, Paweł, Małgorzata, Michał, Agnieszka, Marcin, Barbara, Łukasz, Ewa, Jakub, Magdalena, Adam, Joanna, Mateusz, Aleksandra, Bartosz, Monika, Kamil, Natalia, Grzegorz, Karolina, Wojciech, Marta, Dawid, Justyna, Rafał, Paulina, Maciej, Zofia, Szymon, Weronika, Artur, Dorota, Damian, Beata",
    ),
    last: words(
      "Nowak, Kowalski, Wiśniewski, Wójcik, Kowalczyk, Kamiński, Lewandowski, Zieliński, Szymański, Woźniak, Dąbrowski, Kozłowski, Jankowski, Mazur, Kwiatkowski, Krawczyk, Piotrowski, Grabowski, Nowakowski, Pawłowski, Michalski, Nowicki, Adamczyk, Dudek, Zając, Wieczorek, Jabłoński, Król, Majewski, Olszewski, Jaworski, Wróbel, Malinowski, Pawlak, Witkowski, Walczak, Stępień, Górski, Rutkowski, Michalak",
    ),
  },
  portuguese: {
    first: words(
      "João, Maria, José, Ana, Pedro, Juliana, Lucas, Mariana, Gabriel, Fernanda, Rafael, Beatriz, Felipe, Camila, Gustavo, Larissa, Bruno, Amanda, Rodrigo, Letícia, Thiago, Gabriela, Leonardo, Carolina, Matheus, Patrícia, Diego, Renata, Marcelo, Bianca, André, Luana, Ricardo, Vanessa, Eduardo, Aline, Vinícius, Tatiana, Fábio, Priscila, Caio, Isabela, Henrique, Débora, Daniel, Raquel, Luís, Inês, Tiago, Catarina",
    ),
    last: words(
      "Silva, Santos, Oliveira, Souza, Rodrigues, Ferreira, Alves, Pereira, Lima, Gomes, Costa, Ribeiro, Martins, Carvalho, Almeida, Lopes, Soares, Fernandes, Vieira, Barbosa, Rocha, Dias, Nascimento, Andrade, Moreira, Nunes, Marques, Machado, Mendes, Freitas, Cardoso, Ramos, Gonçalves, Santana, Teixeira, Araújo, Pinto, Correia, Cunha, Moura, Cavalcanti, Monteiro, Batista, Campos, Azevedo, Sousa, Castro, Reis, Fonseca, Tavares",
    ),
  },
  indian: {
    first: words(
      "Rahul, Priya, Amit, Anjali, Rohit, Pooja, Vikram, Neha, Arjun, Kavya, Sanjay, Divya, Rajesh, Sneha, Suresh, Deepika, Anil, Swati, Karthik, Meera, Aditya, Ananya, Nikhil, Shreya, Manish, Ritu, Vivek, Aishwarya, Ravi, Lakshmi, Siddharth, Nisha, Varun, Shalini, Abhishek, Pallavi, Gaurav, Kiran, Harish, Preeti, Prakash, Sunita, Arun, Madhuri, Venkat, Radhika, Sachin, Aarti, Vijay, Payal, Rohan, Isha, Kunal, Tanvi, Pranav, Sakshi, Akash, Riya, Yash, Nandini, Ashish, Bhavna, Dinesh, Geeta, Hemant, Jyoti, Naveen, Rekha, Ramesh, Usha, Sandeep, Vandana, Tarun, Smita, Mohan, Poonam, Ajay, Seema, Deepak, Archana",
    ),
    last: words(
      "Sharma, Patel, Singh, Kumar, Gupta, Reddy, Iyer, Nair, Rao, Mehta, Shah, Joshi, Verma, Agarwal, Bhat, Menon, Pillai, Desai, Kulkarni, Chopra, Malhotra, Kapoor, Banerjee, Chatterjee, Mukherjee, Das, Bose, Sinha, Mishra, Pandey, Tiwari, Yadav, Chauhan, Saxena, Srinivasan, Krishnan, Subramanian, Naidu, Hegde, Shetty, Jain, Bansal, Arora, Khanna, Sethi, Bhatt, Trivedi, Goswami, Ghosh, Dutta, Chandra, Raghavan, Ramanathan, Venkatesh, Kaur, Gill, Sandhu, Dhillon, Grewal, Mathur, Bajaj, Bhatia, Ahuja, Luthra, Kohli, Dubey, Shukla, Tripathi, Dwivedi, Prasad, Varma, Nambiar, Kamath, Pai, Shenoy, Patil, Pawar, Jadhav, Deshpande, Gokhale",
    ),
  },
  chinese: {
    first: words(
      "Wei, Fang, Min, Jing, Lei, Li, Jun, Yan, Hao, Xin, Tao, Ying, Qiang, Hui, Jie, Mei, Yong, Lan, Bo, Na, Chen, Xiaoming, Jian, Xiaoyu, Yi, Ling, Feng, Yun, Gang, Rui, Kai, Ting, Peng, Juan, Long, Qing, Hong, Zhen, Yu, Shan",
    ),
    last: words(
      "Wang, Li, Zhang, Liu, Chen, Yang, Huang, Zhao, Wu, Zhou, Xu, Sun, Ma, Zhu, Hu, Guo, He, Lin, Gao, Luo, Zheng, Liang, Xie, Song, Tang, Han, Feng, Deng, Cao, Peng, Zeng, Xiao, Tian, Dong, Pan, Yuan, Cai, Jiang, Yu, Du, Tan, Lim, Ng, Goh, Ong, Koh, Chua, Teo, Wong",
    ),
  },
  japanese: {
    first: words(
      "Hiroshi, Yuki, Takashi, Yoko, Kenji, Akiko, Daisuke, Naoko, Satoshi, Keiko, Kazuki, Haruka, Takuya, Mai, Shota, Aya, Ryo, Emi, Yusuke, Sakura, Kenta, Misaki, Koji, Yumi, Makoto, Rina, Naoki, Megumi, Tatsuya, Kaori, Hideki, Tomoko, Shinji, Ayumi, Masato, Nanami, Yuta, Saki, Kohei, Miho",
    ),
    last: words(
      "Sato, Suzuki, Takahashi, Tanaka, Watanabe, Ito, Yamamoto, Nakamura, Kobayashi, Kato, Yoshida, Yamada, Sasaki, Yamaguchi, Matsumoto, Inoue, Kimura, Hayashi, Shimizu, Yamazaki, Mori, Abe, Ikeda, Hashimoto, Yamashita, Ishikawa, Nakajima, Maeda, Fujita, Ogawa, Goto, Okada, Hasegawa, Murakami, Kondo, Ishii, Saito, Sakamoto, Endo, Aoki",
    ),
  },
  korean: {
    first: words(
      "Min-jun, Seo-yeon, Ji-hoon, Ji-woo, Hyun-woo, Soo-jin, Dong-hyun, Eun-ji, Jae-won, Ha-eun, Sung-min, Yu-na, Joon-ho, Min-ji, Tae-yang, Hye-jin, Jin-woo, Da-eun, Sang-hoon, Ye-jin, Woo-jin, Su-bin, Kyung-soo, Na-yeon, Young-ho, Ji-eun, Seung-woo, Mi-rae, Jun-seo, So-yeon",
    ),
    last: words(
      "Kim, Lee, Park, Choi, Jung, Kang, Cho, Yoon, Jang, Lim, Han, Oh, Seo, Shin, Kwon, Hwang, Ahn, Song, Jeon, Hong, Yoo, Ko, Moon, Yang, Son, Bae, Baek, Heo, Nam, Noh",
    ),
  },
  arabic: {
    first: words(
      "Mohammed, Fatima, Ahmed, Aisha, Omar, Mariam, Ali, Noor, Hassan, Layla, Khalid, Sara, Yousef, Huda, Ibrahim, Amira, Karim, Rania, Tariq, Lina, Hamza, Yasmin, Samir, Dina, Faisal, Salma, Rami, Nadia, Walid, Hana, Bilal, Leila, Majid, Reem, Nabil, Zainab, Adel, Mona, Fadi, Jana",
    ),
    last: words(
      "Al-Mansouri, Al-Hashimi, Haddad, Khalil, Hassan, Ibrahim, Mahmoud, Nasser, Saleh, Farouk, Al-Farsi, Al-Amiri, Aziz, Bakr, Darwish, Fahmy, Ghanem, Habib, Hamdan, Issa, Jaber, Kassem, Mansour, Najjar, Qureshi, Rahman, Saad, Sharif, Yassin, Zaki, Al-Suwaidi, Al-Nuaimi, El-Sayed, Barakat, Khoury, Said, Taha, Younes, Abbas, Hijazi",
    ),
  },
  hebrew: {
    first: words(
      "Noam, Yael, Itai, Noa, Omer, Tamar, Yonatan, Maya, Eitan, Shira, Amit, Michal, Ori, Adi, Guy, Hila, Ido, Keren, Tal, Dana, Nir, Efrat, Yoav, Roni, Avi, Liat, Daniel, Inbar, Ariel, Gali",
    ),
    last: words(
      "Cohen, Levi, Mizrahi, Peretz, Biton, Dahan, Avraham, Friedman, Azoulay, Katz, Yosef, David, Amar, Ohayon, Hadad, Gabay, Ben-David, Shapiro, Ben-Ami, Rosen, Goldberg, Klein, Segal, Weiss, Ashkenazi, Navon, Bar-On, Shalev, Golan, Harel",
    ),
  },
  african: {
    first: words(
      "Chinedu, Ngozi, Oluwaseun, Adaeze, Emeka, Folake, Tunde, Chioma, Ikechukwu, Funmilayo, Kwame, Amara, Thabo, Nomvula, Sipho, Lerato, Bongani, Thandiwe, Kofi, Abena, Obinna, Yetunde, Sibusiso, Zanele, Musa, Nokuthula, Babajide, Ifeoma, Kagiso, Palesa",
    ),
    last: words(
      "Okafor, Adeyemi, Okonkwo, Balogun, Eze, Nwosu, Adebayo, Ogunleye, Chukwu, Olawale, Mensah, Asante, Dlamini, Nkosi, Ndlovu, Khumalo, Mokoena, Naidoo, Mthembu, Zulu, Mahlangu, Botha, Okeke, Obi, Afolabi, Akande, Bello, Ibekwe, Mbeki, Sithole",
    ),
  },
  filipino: {
    first: words(
      "Juan, Maria, Jose, Ana, Mark, Kristine, John Paul, Mary Grace, Christian, Angelica, Joshua, Jasmine, Carlo, Patricia, Miguel, Camille, Paolo, Bea, Rafael, Nicole, Jerome, Liza, Ramon, Rowena, Jericho, Maricel, Francis, Joy, Dennis, Katrina",
    ),
    last: words(
      "Santos, Reyes, Cruz, Bautista, Ocampo, Garcia, Mendoza, Torres, Tomas, Andrada, Castillo, Flores, Villanueva, Ramos, Castro, Rivera, Aquino, Navarro, Salazar, Mercado, De Leon, Dela Cruz, Gonzales, Pascual, Manalo, Soriano, Valdez, Fernandez, Santiago, Del Rosario",
    ),
  },
};
